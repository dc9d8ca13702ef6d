import type { Context } from 'koa';
import type { ZodType } from 'zod';
import type { OperatorCaller } from '../../../shared/src/access/owner-scope.js';
import type { Lang } from '../../../shared/src/domain/messages.js';
import type { UploadedFile } from '../middleware/multipart.js';

/** Who may call a route. `optional` reads the caller when a token is sent but does not require one. */
export type Access = 'public' | 'optional' | 'user' | 'admin';

export interface Caller {
  account_id: string;
  username: string;
  is_admin: boolean;
  /** Hash of the token this request came with, so logout can revoke exactly it. */
  token_hash: string;
}

/** Upload limits for multipart routes; the byte limits are enforced while the body streams in. */
export interface UploadSpec {
  /** Form field that carries the files (repeatable). */
  field: string;
  maxFiles: number;
  kind: 'image' | 'video';
  /** Other names `field` is also taken under (care matching takes `photo`, as the care log names it). */
  aliases?: string[];
  /** Further file fields taken besides `field` (a fruit batch's one `archive`); documented as binary. */
  extraFiles?: { field: string; mediaType: string; description: string }[];
  /** Replaces the default byte and count limits (a fruit batch's configured limits). */
  limits?: { fileBytes: number; totalBytes: number; maxFiles: number };
}

/** What a handler receives: validated input, never the Koa context. */
export interface RouteInput<B = unknown, Q = unknown, P = unknown> {
  body: B;
  query: Q;
  params: P;
  files: UploadedFile[];
  caller: Caller | null;
  /** On an `admin` route, the proof the admin check admitted the caller (the only maker of one). */
  operator: OperatorCaller | null;
  lang: Lang;
  ip: string;
  requestId: string;
}

/**
 * A handler returns either a body (sent as 200 JSON) or a Reply, for another status, headers or
 * a non-JSON body. A class rather than a shape, so no JSON body is ever mistaken for one.
 */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
    /** True for a non-JSON body (HTML, text, bytes); `headers` should carry Content-Type. */
    readonly raw = false,
  ) {}
}

export interface ResponseDoc {
  description: string;
  schema?: ZodType;
  /** Media type when not JSON, e.g. text/html. */
  contentType?: string;
}

/**
 * One route: the path in OpenAPI form (`/api/jobs/{id}`), the zod schemas that validate it, and
 * its handler. The same object feeds the router, `/api`, `/api/health` features and
 * `/openapi.json`, so the documentation can never list a route that does not exist.
 */
export interface RouteDef<B = any, Q = any, P = any> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head';
  path: string;
  summary: string;
  description?: string;
  tag: string;
  access: Access;
  /** Capability name listed in `/api/health` features; routes sharing one name form one feature. */
  feature?: string;
  body?: ZodType<B>;
  /** With `upload`, 'json' means either a JSON body (no files) or multipart with the files. */
  bodyType?: 'json' | 'form' | 'multipart';
  query?: ZodType<Q>;
  params?: ZodType<P>;
  upload?: UploadSpec;
  responses: Record<number, ResponseDoc>;
  /** Runs after authorisation and before the body is read (a per-route rate limit, so a refused upload costs nothing). */
  guard?: (ctx: Context) => Promise<void>;
  /** Hidden from `/api` and OpenAPI (aliases such as the `/animal/...` mirror). */
  hidden?: boolean;
  handler: (input: RouteInput<B, Q, P>, ctx: Context) => Promise<unknown | Reply>;
}

/** `reply(202, {...})`: a JSON reply with another status or extra headers. */
export const reply = (status: number, body: unknown, headers?: Record<string, string>) => new Reply(status, body, headers);

/** A non-JSON reply, e.g. `raw(200, html, 'text/html; charset=utf-8')`. */
export const raw = (status: number, body: string | Buffer, contentType: string, headers: Record<string, string> = {}) =>
  new Reply(status, body, { 'Content-Type': contentType, ...headers }, true);

/** Typed identity, so route files get inference from their schemas. */
export function defineRoute<B, Q, P>(def: RouteDef<B, Q, P>): RouteDef<B, Q, P> {
  return def;
}

/** Spec section 9: animal routes live at /api/animal/... and /animal/...; the mirror is hidden from docs. */
export function withAnimalMirror(routes: RouteDef[]): RouteDef[] {
  return [...routes, ...routes.map((r) => ({ ...r, path: r.path.replace(/^\/api\/animal\//, '/animal/'), hidden: true }))];
}
