import type { Context } from 'koa';
import type { AuthService } from '../services/auth.service.js';
import type { Caller } from './route.js';

export const SESSION_COOKIE = 'markless_session';

/** Bearer header first (native apps), then the same-origin session cookie (web app). */
export function callerFromRequest(ctx: Context, auth: AuthService): Promise<Caller | null> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
  const token = bearer ?? ctx.cookies.get(SESSION_COOKIE);
  return token ? auth.callerFromToken(token) : Promise.resolve(null);
}

/** HttpOnly, SameSite=Strict: a browser sends it only to us, and page scripts cannot read it. */
export function setSessionCookie(ctx: Context, token: string, maxAgeS: number): void {
  ctx.cookies.set(SESSION_COOKIE, token, {
    httpOnly: true, sameSite: 'strict', path: '/', maxAge: maxAgeS * 1000, secure: ctx.secure, overwrite: true,
  });
}

export function clearSessionCookie(ctx: Context): void {
  ctx.cookies.set(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'strict', path: '/', maxAge: 0, overwrite: true });
}
