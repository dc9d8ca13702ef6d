/**
 * Requests of the attack sweep, generated per operation from `/openapi.json`. A template keeps
 * "slots" where an id of the victim belongs; `materialize` fills them with the victim's real ids
 * or with random ids of the same shape, so a pair differs only in whose object it names.
 */
import fc from 'fast-check';
import { RAW, fieldsOf, hostileString, sameShape, valueArb, type FilePart, type Operation, type Schema } from './openapi.js';
import type { Victim } from './victim.js';

export type Slot =
  | 'tree'
  | 'code'
  | 'fruit'
  | 'animal'
  | 'animal2'
  | 'batch'
  | 'careEntry'
  | 'query'
  | 'treeEvent'
  | 'animalEvent'
  | 'alert'
  | 'job'
  | 'cid'
  | 'careCid';
type Val = string | { slot: Slot };

export interface Template {
  op: Operation;
  path: Record<string, Val>;
  query: Record<string, Val>;
  headers: Record<string, string>;
  body:
    null | { type: string; fields: Record<string, unknown>; files: Array<[string, FilePart]> } | { type: string; raw: Uint8Array | string };
}

export interface Built {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: RequestInit['body'];
  describe: string;
}

/** Which victim id a path/query parameter or body field names, if any. */
export function slotFor(op: Operation, name: string, entityType?: string): Slot | null {
  const p = op.path;
  switch (name) {
    case 'animal_did':
    case 'did':
    case 'correct_did':
      return 'animal';
    case 'code':
      return 'code';
    case 'tree_id':
      return 'tree';
    case 'fruit_id':
      return 'fruit';
    case 'batch_id':
      return 'batch';
    case 'alert_id':
      return 'alert';
    case 'query_id':
      return 'query';
    case 'cid':
      return 'cid';
    case 'target_id':
    case 'entity_id':
      return entityType === 'animal' ? 'animal' : entityType === 'fruit' ? 'fruit' : 'tree';
    case 'event_id':
      return entityType === 'animal' ? 'animalEvent' : 'treeEvent';
    case 'id':
      if (p.startsWith('/api/jobs/')) return 'job';
      if (p.startsWith('/api/tree/')) return 'tree';
      if (p.startsWith('/api/fruit/')) return 'fruit';
      if (p === '/api/care/delete') return 'careEntry';
      return null;
    default:
      return null;
  }
}

export function victimValue(v: Victim, slot: Slot): string | null {
  const i = v.ids;
  const map: Record<Slot, string | null> = {
    tree: i.tree,
    code: i.code,
    fruit: i.fruit,
    animal: i.animals[0]!,
    animal2: i.animals[1]!,
    batch: i.batch,
    careEntry: i.careEntry,
    query: i.query,
    treeEvent: i.treeEvent,
    animalEvent: i.animalEvent,
    alert: i.alert,
    job: i.job,
    cid: i.cids[0] ?? null,
    careCid: i.cids[i.cids.length - 1] ?? null,
  };
  return map[slot];
}

/** A datasci export cursor that decodes: right shape, wrong values (the bad-cursor 500 of issue 21). */
const cursorArb = fc
  .record({
    part: fc.constantFrom('gallery', 'query', 'other'),
    // Weighted toward values that pass a shape check and still are no timestamp or uuid a database takes.
    at: fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 0, max: 99_999 }).map(String) },
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      hostileString,
    ),
    id: fc.oneof(
      { weight: 3, arbitrary: fc.uuid() },
      fc.constant('-'.repeat(36)),
      fc.constant('ffffffff-ffff-ffff-ffff-fffffffffff1'),
      hostileString,
    ),
  })
  .map((c) => Buffer.from(JSON.stringify(c)).toString('base64url'));

/** Values for one parameter: the victim's id slot where it names one, else schema-shaped values. */
function paramArb(
  op: Operation,
  name: string,
  schema: Schema,
  entityType?: string,
  idMode: 'slot' | 'hostile' = 'slot',
): fc.Arbitrary<Val> {
  if (name === 'entity_type') return fc.constant(entityType ?? 'tree');
  if (name === 'cursor') return fc.oneof(cursorArb, hostileString);
  const slot = slotFor(op, name, entityType);
  if (idMode === 'hostile' && (slot || op.params.some((p) => p.name === name && p.in === 'path'))) return hostileString;
  if (slot) return fc.constant({ slot });
  if (name === 'farm_id') return fc.constantFrom('sweep-farm', 'farm-1');
  if (name === 'Idempotency-Key') return fc.constant('');
  return valueArb(schema).map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
}

/**
 * One generated request template for `op`. `files` are the parts multipart bodies draw from;
 * `idMode: 'hostile'` puts hostile strings where ids go (the "bad ids" phase).
 */
export function templateArb(op: Operation, files: FilePart[], idMode: 'slot' | 'hostile' = 'slot'): fc.Arbitrary<Template> {
  const entityType = fc.constantFrom('tree', 'animal', 'fruit');
  return entityType.chain((et) => {
    const pathArb = fc.record(
      Object.fromEntries(op.params.filter((p) => p.in === 'path').map((p) => [p.name, paramArb(op, p.name, p.schema, et, idMode)])),
    );
    const queryParams = op.params.filter((p) => p.in === 'query');
    const queryArb = fc.record(Object.fromEntries(queryParams.map((p) => [p.name, paramArb(op, p.name, p.schema, et, idMode)])), {
      requiredKeys: queryParams.filter((p) => p.required).map((p) => p.name),
    });
    const bodyArb: fc.Arbitrary<Template['body']> = op.bodies.length
      ? fc.constantFrom(...op.bodies).chain((b) => {
          const { plain, files: fileFields, required } = fieldsOf(b.schema);
          const fieldArbs: Record<string, fc.Arbitrary<unknown>> = {};
          for (const [k, s] of Object.entries(plain)) {
            if (k === 'target_type' || k === 'entity_type') fieldArbs[k] = fc.constant(et);
            else {
              const slot = slotFor(op, k, et);
              fieldArbs[k] = slot ? (idMode === 'hostile' ? hostileString : fc.constant({ slot })) : valueArb(s);
            }
          }
          const fileArb =
            fileFields.length && files.length
              ? fc.array(fc.tuple(fc.constantFrom(...fileFields), fc.constantFrom(...files)), { minLength: 1, maxLength: 3 })
              : fc.constant([] as Array<[string, FilePart]>);
          return fc
            .record({
              fields: fc.record(fieldArbs, { requiredKeys: Object.keys(fieldArbs).filter((k) => required.has(k)) }),
              files: fileArb,
            })
            .map(({ fields, files: fs }) => ({ type: b.type, fields, files: b.type === 'multipart/form-data' ? fs : [] }));
        })
      : fc.constant(null);
    return fc.record({ path: pathArb, query: queryArb, body: bodyArb }).map((t) => ({ op, headers: {}, ...t }) as Template);
  });
}

/** Malformed and just-over-the-limit bodies for an operation that declares one. */
export function malformedBodyArb(op: Operation): fc.Arbitrary<Template['body']> {
  const b = op.bodies[0]!;
  const { plain } = fieldsOf(b.schema);
  // One field just past its declared limit: maxLength + 1, maximum + 1, maxItems + 1.
  const overOne = Object.entries(plain).flatMap(([k, s]): Array<[string, unknown]> => {
    if (typeof s.maxLength === 'number' && s.maxLength < 100_000) return [[k, 'x'.repeat(s.maxLength + 1)]];
    if (typeof s.maximum === 'number' && Number.isSafeInteger(s.maximum + 1)) return [[k, s.maximum + 1]];
    if (typeof s.maxItems === 'number' && s.maxItems < 1000) return [[k, Array.from({ length: s.maxItems + 1 }, () => 'x')]];
    return [];
  });
  const wrongTypes = fc.dictionary(
    fc.constantFrom(...(Object.keys(plain).length ? Object.keys(plain) : ['x'])),
    fc.oneof(fc.constant(null), fc.integer(), fc.array(fc.integer(), { maxLength: 2 }), fc.object({ maxDepth: 2 }), hostileString),
    { maxKeys: 4 },
  );
  const options: Array<fc.Arbitrary<Template['body']>> = [
    wrongTypes.map((fields) => ({ type: b.type, fields, files: [] })),
    fc
      .constantFrom('{', '[1,', '{"a":', 'null', '"x"', '\u0000', '{"__proto__":{"admin":true}}')
      .map((raw) => ({ type: 'application/json', raw })),
    fc
      .constantFrom('text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded')
      .map((type) => ({ type, raw: '--x\r\nnot a real body' })),
    // 33-deep JSON: one level over the depth cap.
    fc.constant({ type: 'application/json', raw: '['.repeat(33) + ']'.repeat(33) }),
  ];
  if (overOne.length)
    options.push(
      fc
        .constantFrom(...overOne)
        .map(([k, v]) => ({ type: b.type === 'multipart/form-data' ? b.type : b.type, fields: { [k]: v }, files: [] })),
    );
  return fc.oneof(...options);
}

/** A path segment: `RAW` values go in as they are (broken percent escapes), others encoded. */
function pathSegment(v: string): string {
  if (v.startsWith(RAW)) return v.slice(RAW.length);
  try {
    return encodeURIComponent(v);
  } catch {
    return encodeURIComponent(v.replace(/[\ud800-\udfff]/g, '\ufffd'));
  }
}

/** A concrete request: slots filled from `fill` (victim ids, or random ones of their shape). */
export function materialize(base: string, t: Template, fill: (slot: Slot) => string): Built {
  const val = (v: Val) => (typeof v === 'string' ? v : fill(v.slot));
  const p = t.op.path.replace(/\{([^}]+)\}/g, (_, name: string) => pathSegment(val(t.path[name] ?? 'x')));
  const qs = new URLSearchParams(Object.entries(t.query).map(([k, v]): [string, string] => [k, val(v)])).toString();
  const headers: Record<string, string> = { 'x-request-id': 'sweep-request-id', ...t.headers };
  let body: RequestInit['body'] | undefined;
  let describeBody = '';
  if (t.body && 'raw' in t.body) {
    headers['content-type'] = t.body.type;
    body = typeof t.body.raw === 'string' ? t.body.raw : new Blob([t.body.raw as Uint8Array<ArrayBuffer>]);
    describeBody = ` [${t.body.type}] ${typeof t.body.raw === 'string' ? JSON.stringify(t.body.raw.slice(0, 120)) : `${t.body.raw.length} bytes`}`;
  } else if (t.body) {
    const fields = Object.fromEntries(
      Object.entries(t.body.fields).map(([k, v]) => [
        k,
        v && typeof v === 'object' && 'slot' in (v as object) ? fill((v as { slot: Slot }).slot) : v,
      ]),
    );
    const asText = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
    if (t.body.type === 'application/json') {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(fields);
    } else if (t.body.type === 'multipart/form-data') {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, asText(v));
      for (const [k, f] of t.body.files) form.append(k, new Blob([f.bytes as Uint8Array<ArrayBuffer>], { type: f.type }), f.name);
      body = form;
    } else {
      headers['content-type'] = t.body.type;
      body = new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, asText(v)])).toString();
    }
    describeBody = ` [${t.body.type}] ${JSON.stringify(fields).slice(0, 200)}${t.body.files.length ? ` files=${t.body.files.map(([k, f]) => `${k}:${f.name}`).join(',')}` : ''}`;
  }
  const url = `${base}${p}${qs ? `?${qs}` : ''}`;
  return { method: t.op.method, url, headers, body, describe: `${t.op.method} ${p}${qs ? `?${qs}` : ''}${describeBody}`.slice(0, 400) };
}

export interface Answer {
  status: number;
  text: string;
  ms: number;
}

/** Send it; a reset connection is an answer too (status 0), reported rather than thrown. */
export async function send(b: Built, token?: string): Promise<Answer> {
  inFlight.add(b.describe);
  try {
    return await sendOnce(b, token);
  } finally {
    inFlight.delete(b.describe);
  }
}

/** Requests being answered now: the health probe names them when it was slow. */
export const inFlight = new Set<string>();

async function sendOnce(b: Built, token?: string): Promise<Answer> {
  const headers = { ...b.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const t0 = performance.now();
  try {
    const streamed = b.body instanceof ReadableStream ? { duplex: 'half' } : {};
    const r = await fetch(b.url, {
      method: b.method,
      headers,
      body: b.method === 'GET' ? undefined : b.body,
      signal: AbortSignal.timeout(60_000),
      ...streamed,
    } as RequestInit);
    const text = await r.text();
    return { status: r.status, text, ms: performance.now() - t0 };
  } catch (e) {
    return {
      status: 0,
      text: `${(e as Error).name}: ${(e as Error).message} ${String((e as { cause?: unknown }).cause ?? '')}`,
      ms: performance.now() - t0,
    };
  }
}

/** A shaped-random filler: the same random id for the same victim id within one pair. */
export function shapedFill(v: Victim, rnd: () => number): (slot: Slot) => string {
  const seen = new Map<string, string>();
  return (slot) => {
    const real = victimValue(v, slot) ?? 'none';
    if (!seen.has(real)) seen.set(real, sameShape(real, rnd));
    return seen.get(real)!;
  };
}

export const victimFill = (v: Victim) => (slot: Slot) => victimValue(v, slot) ?? 'none';

/** Does the template name any victim id? */
export function hasSlot(t: Template): boolean {
  const isSlot = (x: unknown) => !!x && typeof x === 'object' && 'slot' in (x as object);
  return [...Object.values(t.path), ...Object.values(t.query), ...(t.body && 'fields' in t.body ? Object.values(t.body.fields) : [])].some(
    isSlot,
  );
}

/**
 * A multipart body of zero-filled files, streamed in 64 KB chunks: the test shares its event
 * loop with the in-process API, so building a 64 MB body in one go would stall the API's health
 * probe through the client, not the server.
 */
export function streamedFiles(files: Array<{ field: string; name: string; size: number }>): {
  body: ReadableStream<Uint8Array>;
  type: string;
} {
  const boundary = `sweep${Date.now().toString(36)}`;
  const chunk = new Uint8Array(64 * 1024);
  const enc = new TextEncoder();
  async function* parts() {
    for (const f of files) {
      yield enc.encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="${f.field}"; filename="${f.name}"\r\nContent-Type: image/jpeg\r\n\r\n`,
      );
      for (let left = f.size; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left);
      yield enc.encode('\r\n');
    }
    yield enc.encode(`--${boundary}--\r\n`);
  }
  const it = parts();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await it.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}
