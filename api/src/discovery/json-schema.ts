import { z, type ZodType } from 'zod';

/** A JSON value as OpenAPI holds it. */
export type Json = Record<string, unknown>;

/**
 * Turns the zod schemas that validate requests into JSON Schema (draft 2020-12, the dialect of
 * OpenAPI 3.1) and collects the shared definitions as OpenAPI components.
 *
 * zod puts shared and recursive parts under a local `$defs` with `#/$defs/...` refs; those refs
 * would not resolve once the schema sits inside the OpenAPI document, so the definitions are
 * hoisted into `components.schemas` under unique names and the refs rewritten.
 */
export class SchemaSink {
  /** Hoisted definitions, for `components.schemas`. */
  readonly components: Record<string, Json> = {};
  private counter = 0;

  /** Request side (`input`) or response side (`output`) of one schema. */
  convert(schema: ZodType, io: 'input' | 'output'): Json {
    const js = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
    delete js.$schema;
    // zod closes output objects (`additionalProperties: false`), but the contract is additive
    // (spec 9: new response fields appear, readers tolerate them), so responses stay open.
    const tree = io === 'output' ? openObjects(js) : js;
    return this.hoist(tree as Json);
  }

  /** Register a named component (e.g. the error body) and return a ref to it. */
  named(name: string, schema: ZodType, io: 'input' | 'output'): Json {
    this.components[name] ??= this.convert(schema, io);
    return { $ref: `#/components/schemas/${name}` };
  }

  private hoist(js: Json): Json {
    const defs = (js.$defs ?? {}) as Record<string, Json>;
    delete js.$defs;
    const selfRef = JSON.stringify(js).includes('"$ref":"#"');
    if (!Object.keys(defs).length && !selfRef) return js;
    const id = ++this.counter;
    const names = new Map(Object.keys(defs).map((k) => [k, `Schema${id}_${k.replace(/[^A-Za-z0-9._-]/g, '_')}`]));
    const rootName = `Schema${id}`;
    const rewrite = (ref: string) =>
      ref === '#'
        ? `#/components/schemas/${rootName}`
        : ref.replace(/^#\/\$defs\/(.+)$/, (_, k: string) => `#/components/schemas/${names.get(k) ?? k}`);
    for (const [k, def] of Object.entries(defs)) this.components[names.get(k)!] = rewriteRefs(def, rewrite) as Json;
    const root = rewriteRefs(js, rewrite) as Json;
    if (!selfRef) return root;
    // A schema that refers to itself must live in components, so the `#` ref has a target.
    this.components[rootName] = root;
    return { $ref: `#/components/schemas/${rootName}` };
  }
}

function rewriteRefs(node: unknown, rewrite: (ref: string) => string): unknown {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, rewrite));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === '$ref' && typeof v === 'string' ? rewrite(v) : rewriteRefs(v, rewrite);
  return out;
}

function openObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openObjects);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'additionalProperties' && v === false) continue;
    out[k] = openObjects(v);
  }
  return out;
}
