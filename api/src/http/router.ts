import Router from '@koa/router';
import type { Context } from 'koa';
import type { ZodType } from 'zod';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import { LIMITS } from '../../../shared/src/domain/limits.js';
import { parseMultipart, type MultipartLimits } from '../middleware/multipart.js';
import { readForm, readJson } from '../middleware/body.js';
import { Reply, type Caller, type RouteDef, type UploadSpec } from './route.js';

/** Resolves the caller from a request's bearer token or session cookie; null when absent or expired. */
export type CallerResolver = (ctx: Context) => Promise<Caller | null>;

/** `/api/jobs/{id}` → `/api/jobs/:id` */
export const toKoaPath = (p: string) => p.replace(/\{(\w+)\}/g, ':$1');

export function uploadLimits(u: UploadSpec): MultipartLimits {
  if (u.limits) return u.limits;
  if (u.kind === 'video') {
    return { fileBytes: LIMITS.videoBytes, totalBytes: LIMITS.videoBytes + LIMITS.framingBytes, maxFiles: u.maxFiles };
  }
  const totalBytes = u.maxFiles > 1 ? LIMITS.imageBatchBytes : LIMITS.fileBytes + LIMITS.framingBytes;
  return { fileBytes: LIMITS.fileBytes, totalBytes, maxFiles: u.maxFiles };
}

/** Validate one part of the request; the 422 names the first field that failed. */
export function validate<T>(schema: ZodType<T>, value: unknown, where: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const field = issue.path.length ? issue.path.join('.') : where;
  throw ERRORS.validation(field, issue.message);
}

async function readBody(def: RouteDef, ctx: Context) {
  // A route with an upload and bodyType 'json' takes either body: JSON without files, or multipart.
  if (def.upload && !(def.bodyType === 'json' && ctx.is('application/json'))) {
    const { fields, files } = await parseMultipart(ctx, uploadLimits(def.upload));
    return { raw: fields, files: files.filter((f) => f.field === def.upload!.field || def.upload!.extraFiles?.some((x) => x.field === f.field)) };
  }
  if (!def.body) return { raw: undefined, files: [] };
  return { raw: def.bodyType === 'form' ? await readForm(ctx) : await readJson(ctx), files: [] };
}

async function authorise(def: RouteDef, ctx: Context, resolve: CallerResolver): Promise<Caller | null> {
  if (def.access === 'public') return null;
  const caller = await resolve(ctx);
  if (!caller && def.access !== 'optional') throw ERRORS.unauthorized();
  if (def.access === 'admin' && !caller!.is_admin) throw ERRORS.adminOnly();
  return caller;
}

/** Turn one route definition into a Koa handler: authorise, read and validate, call, send. */
function handlerFor(def: RouteDef, resolve: CallerResolver) {
  return async (ctx: Context) => {
    // Authorise before reading the body, so an anonymous 20 MB upload costs us nothing.
    const caller = await authorise(def, ctx, resolve);
    if (def.guard) await def.guard(ctx);
    const params = def.params ? validate(def.params, ctx.params, 'path') : ctx.params;
    const query = def.query ? validate(def.query, ctx.query, 'query') : ctx.query;
    const { raw, files } = await readBody(def, ctx);
    const body = def.body ? validate(def.body, raw ?? {}, 'body') : raw;
    const out = await def.handler(
      { body, query, params, files, caller, lang: ctx.state.lang, ip: ctx.ip, requestId: ctx.state.requestId },
      ctx,
    );
    if (out instanceof Reply) {
      ctx.status = out.status;
      ctx.set(out.headers);
      ctx.body = out.body;
    } else if (out !== undefined) {
      ctx.status = 200;
      ctx.body = out;
    }
  };
}

/** Mount every route on one router. Duplicate method+path pairs are a programming error. */
export function buildRouter(routes: RouteDef[], resolve: CallerResolver): Router {
  const router = new Router();
  const seen = new Set<string>();
  for (const def of routes) {
    const key = `${def.method} ${def.path}`;
    if (seen.has(key)) throw new Error(`route defined twice: ${key}`);
    seen.add(key);
    router[def.method](toKoaPath(def.path), handlerFor(def, resolve));
  }
  return router;
}

export { AppError };
