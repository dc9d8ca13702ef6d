import type { Context } from 'koa';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import type { Caller } from './route.js';

export const SESSION_COOKIE = 'markless_session';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A write that rides on the session cookie must come from our own pages: another site's page can
 * make the browser send the cookie, but not forge Origin or Sec-Fetch-Site. Browsers send Origin
 * with every write, so a cookie write without one did not come from our pages and is refused too.
 * Clients with a Bearer header are unaffected.
 */
function checkCookieOrigin(ctx: Context): void {
  if (SAFE_METHODS.has(ctx.method)) return;
  const origin = ctx.get('origin');
  const site = ctx.get('sec-fetch-site');
  // Our own origin from protocol and host (ctx.origin can be the client's Origin header once CORS has run).
  const own = `${ctx.protocol}://${ctx.host}`;
  if (origin !== own || site === 'cross-site') throw new AppError(403, 'origin_forbidden', { field: 'origin' });
}

/**
 * Bearer header first (native apps), then the same-origin session cookie (web app). No token is
 * an anonymous caller; a token that is presented and is not valid (expired, revoked, made up) is a
 * 401 everywhere, so a route open to both never quietly serves a stale session as a stranger.
 */
/** What the HTTP layer needs of authentication (AuthService provides it): a presented token's caller. */
export interface TokenResolver {
  callerFromToken(token: string): Promise<Caller | null>;
}

export async function callerFromRequest(ctx: Context, auth: TokenResolver): Promise<Caller | null> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
  const cookie = bearer ? undefined : ctx.cookies.get(SESSION_COOKIE);
  if (cookie) checkCookieOrigin(ctx);
  const token = bearer ?? cookie;
  if (!token) return null;
  const caller = await auth.callerFromToken(token);
  if (!caller) throw ERRORS.unauthorized();
  return caller;
}

/** HttpOnly, SameSite=Strict: a browser sends it only to us, and page scripts cannot read it. */
export function setSessionCookie(ctx: Context, token: string, maxAgeS: number): void {
  ctx.cookies.set(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    maxAge: maxAgeS * 1000,
    secure: ctx.secure,
    overwrite: true,
  });
}

export function clearSessionCookie(ctx: Context): void {
  ctx.cookies.set(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'strict', path: '/', maxAge: 0, overwrite: true });
}
