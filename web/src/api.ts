import { currentLang, t } from './i18n.js';
import { enqueue, flush } from './offline.js';

/** What every call answers: the HTTP status and the parsed JSON body (or null). */
export interface Answer<T = any> {
  status: number;
  ok: boolean;
  json: T;
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

/** Wait exactly Retry-After seconds (spec 7), counting down on screen. */
async function waitOut(seconds: number): Promise<void> {
  for (let left = seconds; left > 0; left--) {
    waitListeners.forEach((l) => l(left));
    await sleep(1000);
  }
  waitListeners.forEach((l) => l(null));
}

/** A job-backed route answered 202: poll its job until it has the route's own answer. */
async function followJob(poll: string): Promise<Answer> {
  for (;;) {
    await sleep(1000);
    const r = await call('GET', poll);
    if (r.json?.status === 'completed') return { status: 200, ok: true, json: { ok: true, ...r.json.result } };
    if (r.json?.status === 'failed' || !r.ok) {
      const status = r.json?.error?.status ?? r.status;
      return { status, ok: false, json: { ok: false, error: r.json?.error?.message ?? t('network_error'), ...r.json } };
    }
  }
}

/**
 * Call the API on this origin. The session cookie set at sign-in authenticates; the app never
 * holds or shows a token. A 429 is waited out and the same body (photos included) sent again.
 */
export async function call<T = any>(method: string, path: string, body?: FormData | Record<string, unknown> | URLSearchParams, opts: { key?: string; queue?: boolean } = {}): Promise<Answer<T>> {
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
    if (res.status === 429 && attempt < 10) {
      await waitOut(Math.max(1, Number(res.headers.get('Retry-After')) || 1));
      continue;
    }
    const json = await res.json().catch(() => null);
    if (res.status === 202 && json?.poll) return followJob(json.poll) as Promise<Answer<T>>;
    if (res.status === 401 && path !== '/api/me' && path !== '/api/login') onSignedOut();
    return { status: res.status, ok: res.ok && json?.ok !== false, json };
  }
}

/** The server's sentence for a failure, or a generic one. */
export function errorText(a: Answer): string {
  if (a.status === 404 && !a.json?.error) return t('not_available');
  return a.json?.error ?? t('network_error');
}

/** A fresh Idempotency-Key (the server accepts [A-Za-z0-9._:-]{1,128}). */
export function newKey(): string {
  return globalThis.crypto?.randomUUID?.() ?? `k-${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/** Send the writes queued offline, each with its first key; resolves to how many went out. */
export function sendQueued(): Promise<number> {
  return flush((q, form) => call(q.method, q.path, form, { key: q.key }));
}
