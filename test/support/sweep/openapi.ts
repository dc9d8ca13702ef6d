/**
 * The attack sweep's view of `/openapi.json`: every operation (plus the hidden `/animal/...`
 * mirror of each `/api/animal/...` route), and fast-check arbitraries built from its JSON schemas.
 * Only what the service's generated document uses is understood; anything else generates `{}`/a
 * string, which the sweep still sends (a wrong guess is one more malformed request).
 */
import fc from 'fast-check';

export type Schema = Record<string, any>;

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  method: string;
  /** Path template, e.g. `/api/tree/{id}/timeline`. */
  path: string;
  /** Callable without a token: no security requirement, or `{}` among the alternatives (token optional). */
  isPublic: boolean;
  params: Param[];
  /** Declared body media types with their (resolved) schemas. */
  bodies: Array<{ type: string; schema: Schema }>;
}

/** Every operation of the document; `/api/animal/...` ones also at `/animal/...` (spec 9.3). */
export function operations(doc: any): Operation[] {
  const out: Operation[] = [];
  for (const [p, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
      const params: Param[] = (op.parameters ?? []).map((x: any) => ({
        name: x.name,
        in: x.in,
        required: !!x.required,
        schema: deref(doc, x.schema ?? {}),
      }));
      const bodies = Object.entries<any>(op.requestBody?.content ?? {}).map(([type, c]) => ({ type, schema: deref(doc, c.schema ?? {}) }));
      const security: object[] = op.security ?? doc.security ?? [];
      const isPublic = !security.length || security.some((alt) => !Object.keys(alt).length);
      const base: Operation = { method: method.toUpperCase(), path: p, isPublic, params, bodies };
      out.push(base);
      if (p.startsWith('/api/animal/')) out.push({ ...base, path: p.replace(/^\/api\/animal\//, '/animal/') });
    }
  }
  return out;
}

/** `$ref`s resolved (one level at a time, cycles cut at depth 8). */
export function deref(doc: any, s: Schema, depth = 0): Schema {
  if (!s || typeof s !== 'object' || depth > 8) return {};
  if (typeof s.$ref === 'string') {
    const target = s.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((o: any, k: string) => o?.[k], doc);
    return deref(doc, { ...target, ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== '$ref')) }, depth + 1);
  }
  const out: Schema = { ...s };
  if (s.properties)
    out.properties = Object.fromEntries(Object.entries<Schema>(s.properties).map(([k, v]) => [k, deref(doc, v, depth + 1)]));
  if (s.items) out.items = deref(doc, s.items, depth + 1);
  for (const k of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(s[k])) out[k] = s[k].map((x: Schema) => deref(doc, x, depth + 1));
  return out;
}

/** A file part: name, media type and bytes. */
export interface FilePart {
  name: string;
  type: string;
  bytes: Uint8Array;
}

export const isBinary = (s: Schema): boolean => s.format === 'binary' || (s.type === 'array' && s.items?.format === 'binary');

/** Plain (non-binary) fields of an object schema, and its binary ones. */
export function fieldsOf(s: Schema): { plain: Record<string, Schema>; files: string[]; required: Set<string> } {
  const props: Record<string, Schema> = {};
  const collect = (x: Schema) => {
    Object.assign(props, x.properties ?? {});
    for (const k of ['allOf', 'anyOf', 'oneOf']) for (const y of x[k] ?? []) collect(y);
  };
  collect(s);
  const plain: Record<string, Schema> = {};
  const files: string[] = [];
  for (const [k, v] of Object.entries(props)) isBinary(v) ? files.push(k) : (plain[k] = v);
  return { plain, files, required: new Set<string>(s.required ?? []) };
}

const cap = (n: number | undefined, max: number) => Math.min(n ?? max, max);

/** A value that (mostly) satisfies `s`; strings and arrays stay short so the sweep stays cheap. */
export function valueArb(s: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (!s || depth > 5) return fc.constant(null);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum) && s.enum.length) return fc.constantFrom(...s.enum);
  const alts = s.anyOf ?? s.oneOf;
  if (Array.isArray(alts) && alts.length) return fc.oneof(...alts.map((a: Schema) => valueArb(a, depth + 1)));
  if (Array.isArray(s.allOf) && s.allOf.length) return valueArb(Object.assign({}, ...s.allOf), depth + 1);
  const type = Array.isArray(s.type) ? s.type[0] : (s.type ?? (s.properties ? 'object' : undefined));
  switch (type) {
    case 'string': {
      if (s.format === 'uuid') return fc.uuid({ version: 4 });
      if (s.format === 'date-time')
        return fc.date({ min: new Date('2020-01-01'), max: new Date('2026-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
      if (s.format === 'date')
        return fc
          .date({ min: new Date('2020-01-01'), max: new Date('2026-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10));
      if (typeof s.pattern === 'string' && s.pattern.length < 200) {
        try {
          return fc.stringMatching(new RegExp(s.pattern)).filter((x) => x.length <= cap(s.maxLength, 200));
        } catch {
          /* an expression fast-check cannot invert: fall through to plain strings */
        }
      }
      return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.max(s.minLength ?? 0, cap(s.maxLength, 24)) });
    }
    case 'integer':
      return fc.integer({ min: Math.max(s.minimum ?? -1000, -1e9), max: Math.min(s.maximum ?? 1000, 1e9) });
    case 'number':
      return fc.double({ min: Math.max(s.minimum ?? -1000, -1e9), max: Math.min(s.maximum ?? 1000, 1e9), noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valueArb(s.items ?? {}, depth + 1), {
        minLength: s.minItems ?? 0,
        maxLength: Math.max(s.minItems ?? 0, cap(s.maxItems, 3)),
      });
    case 'object': {
      const props = Object.entries<Schema>(s.properties ?? {});
      const req = new Set<string>(s.required ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of props) model[k] = valueArb(v, depth + 1);
      return fc.record(model, { requiredKeys: props.map(([k]) => k).filter((k) => req.has(k)) });
    }
    default:
      return fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.constant(null));
  }
}

/**
 * Hostile strings for ids and fields: empty, traversal, encodings, huge numbers, injection
 * shapes, control characters, a prototype key. Any of these must be a 4xx, never a 5xx.
 */
export const RAW = '\u0001raw:';
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  // Sent as they are in a path: invalid UTF-8 and broken percent escapes.
  fc.constantFrom(`${RAW}%ED%A0%80`, `${RAW}%`, `${RAW}%E0%A4%A`, `${RAW}%2e%2e`, `${RAW}..%2f..%2f`),
  fc.constantFrom(
    '',
    ' ',
    '.',
    '..',
    '../../etc/passwd',
    '%00',
    '\u0000',
    'null',
    'undefined',
    '-1',
    '0',
    '1e309',
    '9'.repeat(40),
    "' or 1=1 --",
    '${7*7}',
    '__proto__',
    'constructor',
    '😀',
    'a'.repeat(300),
    'bafy',
    'did:markless:',
    '00000000-0000-0000-0000-00000000000g',
    '%ZZ',
    '\ud800',
    'NaN',
    '[]',
    '{}',
    'true',
  ),
  fc.string({ maxLength: 40, unit: 'binary' }),
);

/** A random id with the shape of `id`: same length, prefix and separators, other characters redrawn. */
export function sameShape(id: string, rnd: () => number): string {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-([0-9a-f])[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.exec(id);
  const hex = '0123456789abcdef';
  const pick = (set: string) => set[Math.floor(rnd() * set.length)]!;
  if (uuid) {
    // Keep the version and variant nibbles: the same kind of UUID, a different one.
    return id.replace(/[0-9a-f]/gi, (c, i: number) => (i === 14 || i === 19 ? c : pick(hex)));
  }
  // A CID (base32, "b" + "afy/afk"), a DID ("did:method:..."), a code: keep the head, redraw the tail.
  const head = id.startsWith('baf') ? 8 : id.lastIndexOf(':') + 1;
  const body = id.slice(head);
  const set = /^[0-9a-f]+$/.test(body)
    ? hex
    : /^[a-z2-7]+$/.test(body)
      ? 'abcdefghijklmnopqrstuvwxyz234567'
      : /^[A-Z0-9]+$/.test(body)
        ? 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
        : 'abcdefghijklmnopqrstuvwxyz0123456789';
  let out = id;
  for (let tries = 0; out === id && tries < 5; tries++)
    out = id.slice(0, head) + body.replace(/[A-Za-z0-9]/g, (c) => (/[A-Za-z0-9]/.test(c) ? pick(set) : c));
  return out;
}
