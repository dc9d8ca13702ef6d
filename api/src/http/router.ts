import Router from '@koa/router';
import type { Context } from 'koa';
import type { ZodType } from 'zod';
import { operatorOf, scopeOfCaller, type OperatorCaller } from '../../../shared/src/access/owner-scope.js';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import { LIMITS } from '../../../shared/src/domain/limits.js';
import { parseMultipart, type MultipartLimits } from '../middleware/multipart.js';
import { readForm, readJson } from '../middleware/body.js';
import { unstorableField, unstorableText } from '../middleware/text.js';
import { idempotencyKeyOf, requestScope } from './request-scope.js';
import type { ReplayStore } from './replay.js';
import { Reply, type Caller, type RouteDef, type UploadSpec } from './route.js';

/** Resolves the caller from a request's bearer token or session cookie; null when absent or expired. */
export type CallerResolver = (ctx: Context) => Promise<Caller | null>;

/** `/api/jobs/{id}` → `/api/jobs/:id` */
export const toKoaPath = (p: string) => p.replace(/\{(\w+)\}/g, ':$1');

export function uploadLimits(u: UploadSpec): MultipartLimits {
  if (u.limits) return u.limits;
  if (u.kind === 'video') {
    return { fileBytes: LIMITS.videoBytes, totalBytes: LIMITS.videoBytes + LIMITS.framingBytes, maxFiles: u.maxFiles, field: u.field };
  }
  const totalBytes = u.maxFiles > 1 ? LIMITS.imageBatchBytes : LIMITS.fileBytes + LIMITS.framingBytes;
  return { fileBytes: LIMITS.fileBytes, totalBytes, maxFiles: u.maxFiles, field: u.field };
}

/** zod issue codes → the catalogue's validation rules (`validation_<rule>`), so no validator English reaches a sentence. */
function ruleOf(issue: { code: string; path: PropertyKey[] }, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type': {
      let v: unknown = value;
      for (const k of issue.path) v = v == null ? undefined : (v as Record<PropertyKey, unknown>)[k];
      return v === undefined ? 'required' : 'type';
    }
    case 'too_small':
      return 'too_small';
    case 'too_big':
      return 'too_big';
    case 'invalid_format':
    case 'invalid_string':
      return 'format';
    case 'invalid_value':
    case 'invalid_enum_value':
    case 'invalid_union':
      return 'choice';
    case 'not_multiple_of':
      return 'range';
    default:
      return 'invalid';
  }
}

/**
 * Validate one part of the request; the 422 names the first field that failed. The sentence
 * comes from the catalogue per rule; `reason` keeps the machine-readable rule code.
 */
export function validate<T>(schema: ZodType<T>, value: unknown, where: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const field = issue.path.length ? issue.path.join('.') : where;
  const rule = ruleOf(issue as { code: string; path: PropertyKey[] }, value);
  throw new AppError(422, 'validation_failed', { field, rule, reason: rule });
}

/**
 * PostgreSQL refuses U+0000 in text. A path id holding one can name nothing, so it is the same
 * 404 as any unknown id; HTML pages (`/t/{code}`) get the NUL swapped for U+FFFD so they still
 * render their own "unknown" page. Query and body fields holding one are a 422 naming the field.
 */
function checkText(def: RouteDef, params: Record<string, string>, query: unknown): Record<string, string> {
  const html = Object.values(def.responses).some((r) => r.contentType?.startsWith('text/html'));
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    if (!unstorableText(v)) out[k] = v;
    // eslint-disable-next-line no-control-regex -- NUL is the character being replaced
    else if (html) out[k] = v.replace(/[\u0000\ud800-\udfff]/g, '\ufffd');
    else throw ERRORS.notFound();
  }
  const badQuery = unstorableField(query);
  if (badQuery) throw new AppError(422, 'text_nul_byte', { field: badQuery });
  return out;
}

async function readBody(def: RouteDef, ctx: Context) {
  // A route with an upload and bodyType 'json' takes either body: JSON without files, or multipart.
  if (def.upload && !(def.bodyType === 'json' && ctx.is('application/json'))) {
    const u = def.upload;
    const { fields, files } = await parseMultipart(ctx, uploadLimits(u));
    // A file in a field the route does not read would be dropped without a word: say so instead.
    const taken = new Set([u.field, ...(u.aliases ?? []), ...(u.extraFiles ?? []).map((x) => x.field)]);
    const stray = files.find((f) => !taken.has(f.field));
    if (stray) throw new AppError(422, 'file_field_unexpected', { field: stray.field, expected: [...taken].join(', ') });
    return { raw: fields, files: files.map((f) => (u.aliases?.includes(f.field) ? { ...f, field: u.field } : f)) };
  }
  if (!def.body) return { raw: undefined, files: [] };
  return { raw: def.bodyType === 'form' ? await readForm(ctx) : await readJson(ctx), files: [] };
}

async function authorise(
  def: RouteDef,
  ctx: Context,
  resolve: CallerResolver,
): Promise<{ caller: Caller | null; operator: OperatorCaller | null }> {
  if (def.access === 'public') return { caller: null, operator: null };
  const caller = await resolve(ctx);
  if (!caller && def.access !== 'optional') throw ERRORS.unauthorized();
  if (def.access !== 'admin') return { caller, operator: null };
  if (!caller!.is_admin) throw ERRORS.adminOnly();
  // The admin check's proof, the one thing that lets a handler choose whose records (owner-scope.ts).
  return { caller, operator: operatorOf(caller!) };
}

/** Turn one route definition into a Koa handler: authorise, read and validate, call, send. */
function handlerFor(def: RouteDef, resolve: CallerResolver, replay?: ReplayStore) {
  return async (ctx: Context) => {
    // Authorise before reading the body, so an anonymous 20 MB upload costs us nothing.
    const { caller, operator } = await authorise(def, ctx, resolve);
    const rawParams = checkText(def, ctx.params, ctx.query);
    if (def.guard) await def.guard(ctx);
    const params = def.params ? validate(def.params, rawParams, 'path') : rawParams;
    const query = def.query ? validate(def.query, ctx.query, 'query') : ctx.query;
    const { raw, files } = await readBody(def, ctx);
    const badField = unstorableField(raw);
    if (badField) throw new AppError(422, 'text_nul_byte', { field: badField });
    const body = def.body ? validate(def.body, raw ?? {}, 'body') : raw;
    const idempotencyKey = idempotencyKeyOf(ctx.get('idempotency-key'));
    // A signed-in write without uploads, repeated with its key, gets its first answer (replay.ts).
    const replayable = replay && caller && idempotencyKey && def.method !== 'get' && !def.upload;
    if (replayable) {
      const first = await replay.find(scopeOfCaller(caller), idempotencyKey, def.method, ctx.path);
      if (first) {
        ctx.status = first.status;
        ctx.set('Idempotency-Replayed', 'true');
        ctx.body = first.body;
        return;
      }
    }
    const out = await requestScope.run({ idempotencyKey }, () =>
      def.handler({ body, query, params, files, caller, operator, lang: ctx.state.lang, ip: ctx.ip, requestId: ctx.state.requestId }, ctx),
    );
    if (out instanceof Reply) {
      ctx.status = out.status;
      ctx.set(out.headers);
      ctx.body = out.body;
    } else if (out !== undefined) {
      ctx.status = 200;
      ctx.body = out;
      if (replayable) await replay.keep(scopeOfCaller(caller), idempotencyKey, def.method, ctx.path, 200, out);
    }
  };
}

/** Mount every route on one router. Duplicate method+path pairs are a programming error. */
export function buildRouter(routes: RouteDef[], resolve: CallerResolver, replay?: ReplayStore): Router {
  const router = new Router();
  const seen = new Set<string>();
  for (const def of routes) {
    const key = `${def.method} ${def.path}`;
    if (seen.has(key)) throw new Error(`route defined twice: ${key}`);
    seen.add(key);
    router[def.method](toKoaPath(def.path), handlerFor(def, resolve, replay));
  }
  return router;
}

export { AppError };
