import { currentLang, reasonText, t } from './i18n.js';
import { enqueue, flush } from './offline.js';

/** What every call answers: the HTTP status and the parsed JSON body (or null). */
export interface Answer<T = any> {
  status: number;
  ok: boolean;
  json: T;
  /** A 429's Retry-After in seconds, when it sent one. */
  retryAfter?: number;
}

type Listener = (waitingS: number | null) => void;
const waitListeners = new Set<Listener>();
let onSignedOut: () => void = () => {};

/** Shown while a 429 is being waited out; null when the wait is over. */
export function onRateWait(l: Listener): void {
  waitListeners.add(l);
}
export function onUnauthorized(f: () => void): void {
  onSignedOut = f;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Wait exactly Retry-After seconds (spec 7), counting down on screen; the caller clears the count when it is done. */
async function waitOut(seconds: number): Promise<void> {
  for (let left = seconds; left > 0; left--) {
    waitListeners.forEach((l) => l(left));
    await sleep(1000);
  }
}

/** A job-backed route answered 202: poll its job until it has the route's own answer. */
async function followJob(poll: string): Promise<Answer> {
  for (;;) {
    await sleep(1000);
    const r = await call('GET', poll);
    if (r.json?.status === 'completed') return { status: 200, ok: true, json: { ok: true, ...r.json.result } };
    if (!r.ok) return r;
    // A failed job's `error` is {code, status}, no sentence: the sentence is its status's.
    if (r.json?.status === 'failed') {
      const failed = { status: Number(r.json.error?.status) || 500, ok: false };
      return { ...failed, json: { ...r.json, ok: false, error: errorText({ ...failed, json: null }) } };
    }
  }
}

/**
 * Call the API on this origin. The session cookie set at sign-in authenticates; the app never
 * holds or shows a token. A 429 is waited out and the same body (photos included) sent again,
 * the wait shown on screen (onRateWait) from the first 429 until the call is answered.
 */
export async function call<T = any>(
  method: string,
  path: string,
  body?: FormData | Record<string, unknown> | URLSearchParams,
  opts: { key?: string; queue?: boolean } = {},
): Promise<Answer<T>> {
  let waited = false;
  try {
    return await send<T>(method, path, body, opts, () => {
      waited = true;
    });
  } finally {
    if (waited) waitListeners.forEach((l) => l(null));
  }
}

async function send<T>(
  method: string,
  path: string,
  body: FormData | Record<string, unknown> | URLSearchParams | undefined,
  opts: { key?: string; queue?: boolean },
  onWait: () => void,
): Promise<Answer<T>> {
  const headers: Record<string, string> = { 'Accept-Language': currentLang() };
  // Every write carries one key for all its attempts (429 waits, offline replays): the server
  // answers a repeat with the first result instead of doing it twice.
  const write = method !== 'GET' && method !== 'HEAD';
  const key = write ? (opts.key ?? newKey()) : undefined;
  if (key) headers['Idempotency-Key'] = key;
  let payload: BodyInit | undefined;
  if (body instanceof FormData || body instanceof URLSearchParams) payload = body;
  else if (body) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(path, { method, headers, body: payload, credentials: 'same-origin' });
    } catch {
      // No signal: a photo upload waits in the offline queue and goes out when the network is back.
      if (write && opts.queue && body instanceof FormData) {
        await enqueue(method, path, key!, body);
        return { status: 0, ok: false, json: { ok: false, queued: true, error: t('queued_offline') } as T };
      }
      return { status: 0, ok: false, json: { ok: false, error: t('network_error') } as T };
    }
    const retryAfter = Number(res.headers.get('Retry-After')) || undefined;
    if (res.status === 429 && attempt < 10) {
      onWait();
      await waitOut(Math.max(1, retryAfter ?? 1));
      continue;
    }
    const json = await res.json().catch(() => null);
    if (res.status === 202 && json?.poll) return followJob(json.poll) as Promise<Answer<T>>;
    if (res.status === 401 && path !== '/api/me' && path !== '/api/login') onSignedOut();
    return { status: res.status, ok: res.ok && json?.ok !== false, json, ...(res.status === 429 && retryAfter ? { retryAfter } : {}) };
  }
}

/**
 * The sentence for a failure, in the app's language. Refused photos are named in the app's own
 * words: the server's sentence tells integrators about its accept_warnings parameter, which a
 * farmer never types (the enrol page offers a button instead). Otherwise the server's sentence
 * (rendered for Accept-Language), and for an answer without one (a 429 or 502 from a proxy, a
 * lost connection) the sentence of its status: a failure is never silent.
 */
export function errorText(a: Answer): string {
  const j = a.json;
  if (j?.code === 'photos_refused' && Array.isArray(j.refused)) {
    const files = (j.refused as { index: number; filename?: string; reasons: string[] }[])
      .map((x) => `${x.filename || `#${x.index + 1}`} (${x.reasons.map(reasonText).join(', ')})`)
      .join('; ');
    return t('photos_refused', { n: j.refused.length, files });
  }
  if (j?.code === 'already_enrolled' && j.existing) return `${t('already_title')} ${j.existing.name ?? j.existing.animal_did}`;
  if (typeof j?.error === 'string' && j.error) return j.error;
  if (a.status === 0) return t('network_error');
  if (a.status === 404) return t('not_available');
  if (a.status === 429) return a.retryAfter ? t('rate_limited_in', { s: a.retryAfter }) : t('rate_limited');
  return t('request_failed', { status: a.status });
}

/** A fresh Idempotency-Key (the server accepts [A-Za-z0-9._:-]{1,128}). */
export function newKey(): string {
  return globalThis.crypto?.randomUUID?.() ?? `k-${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/** Send the writes queued offline, each with its first key; resolves to how many went out. */
export function sendQueued(): Promise<number> {
  return flush((q, form) => call(q.method, q.path, form, { key: q.key }));
}
