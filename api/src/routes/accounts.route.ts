import { z } from 'zod';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { clearSessionCookie, setSessionCookie } from '../http/caller.js';
import { Ok, errorResponse as err } from './schemas.js';

const Credentials = z.object({
  username: z.string().describe('3 to 32 characters of a-z, 0-9, dot and underscore'),
  password: z
    .string()
    .describe(
      'at least 10 characters, two character classes, not a common password, and a zxcvbn score of at least PASSWORD_MIN_SCORE (default 3)',
    ),
});
const AccountOut = z.object({
  id: z.string().uuid(),
  username: z.string(),
  is_admin: z.boolean(),
  did: z.string().nullable(),
  created_at: z.string(),
});
const SessionOut = Ok.extend({
  token: z.string().describe('opaque bearer token; send as `Authorization: Bearer <token>`'),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().describe('seconds until the token expires (default 43200)'),
  account: AccountOut,
});

export function accountRoutes(s: Services): RouteDef[] {
  const auth = s.auth;
  return [
    defineRoute({
      method: 'post',
      path: '/api/signup',
      tag: 'accounts',
      access: 'public',
      feature: 'accounts',
      summary: 'Create an account and receive a token',
      description: 'Also sets an HttpOnly same-origin session cookie for the web app.',
      body: Credentials,
      responses: {
        200: { description: 'account created', schema: SessionOut },
        400: err('a signup rule was broken (a taken username included); the message names it'),
        403: err('sign-up is closed on this server (SIGNUP_OPEN=false)'),
        422: err('missing field or wrong type'),
        429: err(
          'too many failed sign-ups (taken usernames) from this address, SIGNUP_SOURCE_FAILURES in an hour, with the login back-off (signup_throttled, Retry-After says how long); or too many password hashes in flight from this address',
        ),
      },
      handler: async ({ body, ip }, ctx) => {
        const session = await auth.signup(body.username, body.password, ip);
        setSessionCookie(ctx, session.token, session.expires_in);
        return { ok: true, ...session };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/login',
      tag: 'accounts',
      access: 'public',
      feature: 'accounts',
      summary: 'Sign in with username and password',
      body: Credentials,
      responses: {
        200: { description: 'signed in', schema: SessionOut },
        400: err('username breaks the username rule'),
        401: err('wrong username or password (the same answer for an unknown user)'),
        422: err('missing field or wrong type'),
        429: err(
          'this address is locked for this username after 5 wrong passwords in a row (login_locked), or for every username after 20 failures (login_throttled), or the username is slowed for addresses that failed before; exponential back-off from 30 s to 15 min, Retry-After says how long; an address without failures is never held back by others. Also: too many password hashes in flight from this address',
        ),
      },
      handler: async ({ body, ip }, ctx) => {
        const session = await auth.login(body.username, body.password, ip);
        setSessionCookie(ctx, session.token, session.expires_in);
        return { ok: true, ...session };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/logout',
      tag: 'accounts',
      access: 'user',
      feature: 'accounts',
      summary: 'End this session (revokes the token used)',
      responses: { 200: { description: 'revoked', schema: Ok }, 401: err('not signed in') },
      handler: async ({ caller }, ctx) => {
        await auth.logout(caller!);
        clearSessionCookie(ctx);
        return { ok: true };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/logout-all',
      tag: 'accounts',
      access: 'user',
      feature: 'accounts',
      summary: 'Revoke every token of this account, on every device',
      responses: { 200: { description: 'revoked', schema: Ok.extend({ revoked: z.number().int() }) }, 401: err('not signed in') },
      handler: async ({ caller }, ctx) => {
        const revoked = await auth.logoutAll(caller!);
        clearSessionCookie(ctx);
        return { ok: true, revoked };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/me',
      tag: 'accounts',
      access: 'user',
      feature: 'accounts',
      summary: 'Who the caller is',
      responses: {
        200: {
          description: 'the account',
          schema: Ok.extend({
            account: AccountOut,
            farms: z
              .array(z.string())
              .describe(
                'the farm ids you enrolled trees, fruit or animals into, most recently used first (at most 50), so a new device need not type one',
              ),
            kinds: z
              .object({ tree: z.number().int(), fruit: z.number().int(), animal: z.number().int() })
              .describe('how many trees, fruit and animals the account owns: the app puts the tabs of the kinds it uses first'),
          }),
        },
        401: err('not signed in or token expired'),
      },
      handler: async ({ caller }) => ({
        ok: true,
        account: await auth.me(caller!),
        farms: await auth.farms(caller!),
        kinds: await auth.kindCounts(caller!),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/auth/did/challenge',
      tag: 'accounts',
      access: 'public',
      feature: 'did-auth',
      summary: 'Get a single-use sign-in challenge for a did:key (rate-limited per IP)',
      responses: {
        200: {
          description: 'sign `message` (UTF-8) with the Ed25519 key of your did:key',
          schema: Ok.extend({ nonce: z.string(), message: z.string(), expires_at: z.string() }),
        },
        429: err('too many challenges from this address; see Retry-After'),
      },
      handler: async ({ ip }) => ({ ok: true, ...(await auth.didChallenge(ip)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/auth/did/verify',
      tag: 'accounts',
      access: 'public',
      feature: 'did-auth',
      summary: 'Exchange a signed challenge for a token',
      body: z.object({
        // Upper bounds because base58 decoding is quadratic: a megabyte `did` would stall the event loop.
        did: z.string().startsWith('did:key:').max(200).describe('Ed25519 did:key (z6Mk...)'),
        nonce: z.string().min(8).max(128),
        signature: z.string().min(64).max(256).describe('Ed25519 signature over `message`, base64, base64url or hex'),
      }),
      responses: {
        200: { description: 'signed in', schema: SessionOut },
        400: err('challenge unknown, used or expired'),
        401: err('signature does not match the key; the challenge is used up all the same'),
        403: err('no account has this key yet and sign-up is closed on this server (signup_closed)'),
        422: err('missing field or wrong type'),
      },
      handler: async ({ body }, ctx) => {
        const session = await auth.didVerify(body.did, body.nonce, body.signature);
        setSessionCookie(ctx, session.token, session.expires_in);
        return { ok: true, ...session };
      },
    }),
  ];
}
