import type { RouteDef, ResponseDoc } from '../http/route.js';
import { ErrorBody } from '../routes/schemas.js';
import { SchemaSink, type Json } from './json-schema.js';
import { serviceGuide, type ServiceFacts } from './guide.js';

export const BEARER = 'bearerAuth';
export const COOKIE = 'cookieAuth';

/** Routes that discovery shows: everything mounted except aliases marked hidden. */
export const visibleRoutes = (routes: RouteDef[]) => routes.filter((r) => !r.hidden);

/**
 * The OpenAPI 3.1 document for the live route table. It is derived from the same RouteDef list
 * and zod schemas the router validates with, so it cannot describe a route that is not mounted
 * or a field the server would refuse.
 */
export function buildOpenApi(routes: RouteDef[], facts: ServiceFacts): Json {
  const sink = new SchemaSink();
  const paths: Record<string, Json> = {};
  const ids = new Set<string>();
  for (const def of visibleRoutes(routes)) {
    (paths[def.path] ??= {})[def.method] = operationOf(def, sink, uniqueId(def, ids));
  }
  const errorRef = sink.named('ErrorBody', ErrorBody, 'output');
  return {
    openapi: '3.1.0',
    info: { title: 'markless', version: facts.version, description: serviceGuide(facts), 'x-commit': facts.commit },
    tags: [...new Set(visibleRoutes(routes).map((r) => r.tag))].sort().map((name) => ({ name })),
    paths,
    components: {
      schemas: sink.components,
      responses: standardResponses(errorRef),
      securitySchemes: {
        [BEARER]: { type: 'http', scheme: 'bearer', description: 'Token from POST /api/signup, /api/login or /api/auth/did/verify.' },
        [COOKIE]: {
          type: 'apiKey',
          in: 'cookie',
          name: 'markless_session',
          description: 'HttpOnly same-origin session cookie set at sign-in (web app only).',
        },
      },
    },
  };
}

function uniqueId(def: RouteDef, seen: Set<string>): string {
  const slug =
    def.path
      .replace(/[{}]/g, '')
      .replace(/[^A-Za-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'root';
  let id = `${def.method}_${slug}`;
  for (let n = 2; seen.has(id); n++) id = `${def.method}_${slug}_${n}`;
  seen.add(id);
  return id;
}

function operationOf(def: RouteDef, sink: SchemaSink, operationId: string): Json {
  const op: Json = { operationId, summary: def.summary, tags: [def.tag] };
  const description = [def.description, accessNote(def)].filter(Boolean).join('\n\n');
  if (description) op.description = description;
  const parameters = parametersOf(def, sink);
  if (parameters.length) op.parameters = parameters;
  const body = requestBodyOf(def, sink);
  if (body) op.requestBody = body;
  op.responses = responsesOf(def, sink);
  op.security = securityOf(def);
  op['x-access'] = def.access;
  if (def.feature) op['x-feature'] = def.feature;
  return op;
}

function accessNote(def: RouteDef): string | undefined {
  if (def.access === 'admin')
    return '**Admin only:** the caller must be signed in with an account an operator made administrator (`npm run admin -- grant <username>`); others get 403.';
  if (def.access === 'optional') return 'A token is optional: when one is sent, the answer is personalised for its owner.';
  return undefined;
}

/** `public`: none; `optional`: none or either scheme; `user`/`admin`: either scheme. */
function securityOf(def: RouteDef): Json[] {
  const either = [{ [BEARER]: [] }, { [COOKIE]: [] }];
  if (def.access === 'public') return [];
  if (def.access === 'optional') return [{}, ...either];
  return either;
}

function parametersOf(def: RouteDef, sink: SchemaSink): Json[] {
  const inPath = new Set([...def.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!));
  const out: Json[] = [];
  const add = (where: 'path' | 'query', js: Json) => {
    const props = (js.properties ?? {}) as Record<string, Json>;
    const required = new Set((js.required ?? []) as string[]);
    for (const [name, schema] of Object.entries(props)) {
      if (where === 'path' && !inPath.has(name)) continue;
      const p: Json = { name, in: where, required: where === 'path' || required.has(name), schema };
      if (typeof schema.description === 'string') p.description = schema.description;
      out.push(p);
    }
  };
  if (def.params) add('path', sink.convert(def.params, 'input'));
  if (def.query) add('query', sink.convert(def.query, 'input'));
  // Enrolment and identification uploads (their jobs) honour an Idempotency-Key (jobs.service.ts);
  // every other signed-in write replays its first answer (http/replay.ts).
  const jobUpload = def.upload && /enrol|identify|video|auto|photos/.test(def.path);
  if (jobUpload || (def.method !== 'get' && !def.upload && def.access !== 'public')) {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
      description: jobUpload
        ? "repeat the same key to get the first request's result (or its 202 job) instead of a second enrolment or query"
        : 'repeat the same key (signed in, within 7 days) to get the first answer back (header Idempotency-Replayed: true) instead of doing the write twice; the same key on another route is a 422',
    });
  }
  // A templated segment must always be declared, even when the route did not validate it.
  for (const name of inPath) {
    if (!out.some((p) => p.in === 'path' && p.name === name)) out.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  return out;
}

function requestBodyOf(def: RouteDef, sink: SchemaSink): Json | undefined {
  if (def.upload || def.bodyType === 'multipart') {
    const fields = def.body ? sink.convert(def.body, 'input') : { type: 'object', properties: {} };
    const properties = { ...((fields.properties ?? {}) as Json) };
    if (def.upload) {
      const media = def.upload.kind === 'video' ? 'video/*' : 'image/*';
      properties[def.upload.field] = {
        type: 'array',
        maxItems: def.upload.maxFiles,
        description: `the ${def.upload.kind} file(s); repeat the field for each file`,
        items: { type: 'string', format: 'binary', contentMediaType: media },
      };
      for (const x of def.upload.extraFiles ?? []) {
        properties[x.field] = { type: 'string', format: 'binary', contentMediaType: x.mediaType, description: x.description };
      }
    }
    const schema: Json = { type: 'object', properties };
    if (Array.isArray(fields.required) && fields.required.length) schema.required = fields.required;
    const json =
      def.upload && def.bodyType === 'json' && def.body ? { 'application/json': { schema: sink.convert(def.body, 'input') } } : {};
    return { required: true, content: { ...json, 'multipart/form-data': { schema } } };
  }
  if (!def.body) return undefined;
  const type = def.bodyType === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
  return { required: true, content: { [type]: { schema: sink.convert(def.body, 'input') } } };
}

function responsesOf(def: RouteDef, sink: SchemaSink): Json {
  const out: Json = {};
  for (const [status, doc] of Object.entries(def.responses)) out[status] = responseOf(Number(status), doc as ResponseDoc, sink);
  // Failures the middleware produces on every matching route, whether or not the route lists them.
  const implied: Array<[number, string, boolean]> = [
    [401, 'Unauthorized', def.access === 'user' || def.access === 'admin'],
    [403, 'AdminOnly', def.access === 'admin'],
    [413, 'PayloadTooLarge', Boolean(def.upload || def.body)],
    [422, 'ValidationFailed', Boolean(def.body || def.query || def.params || def.upload)],
    [429, 'RateLimited', true],
  ];
  for (const [status, name, applies] of implied) {
    if (applies && !(String(status) in out)) out[status] = { $ref: `#/components/responses/${name}` };
  }
  return out;
}

function responseOf(status: number, doc: ResponseDoc, sink: SchemaSink): Json {
  const r: Json = { description: doc.description };
  if (doc.schema || doc.contentType) {
    const type = doc.contentType ?? 'application/json';
    const schema = doc.schema ? sink.convert(doc.schema, 'output') : rawSchema(type);
    r.content = { [type]: { schema } };
  }
  if (status === 429) r.headers = { 'Retry-After': retryAfter };
  if (status === 202) r.headers = { Location: { description: 'the job to poll', schema: { type: 'string' } } };
  return r;
}

/** Non-JSON bodies: text is a string, anything else is bytes of that media type. */
function rawSchema(type: string): Json {
  return type.startsWith('text/') ? { type: 'string' } : { type: 'string', contentMediaType: type };
}

const retryAfter = { description: 'whole seconds to wait before retrying', required: true, schema: { type: 'integer', minimum: 1 } };

function standardResponses(errorRef: Json): Json {
  const json = { 'application/json': { schema: errorRef } };
  return {
    Unauthorized: { description: 'not signed in, or the token expired: sign in again and resume', content: json },
    AdminOnly: { description: 'signed in, but not an admin account', content: json },
    PayloadTooLarge: { description: 'the body is over the limit; refused while it streams in, before it is stored', content: json },
    ValidationFailed: { description: 'a field is missing or has the wrong type; `detail` names the field', content: json },
    RateLimited: {
      description: 'too many requests: wait exactly Retry-After seconds',
      headers: { 'Retry-After': retryAfter },
      content: json,
    },
  };
}
