import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';
import type { MessageCode } from '../../../shared/src/domain/messages.js';

const scrypt = (pw: string, salt: Buffer, len: number, o: ScryptOptions) =>
  new Promise<Buffer>((res, rej) => scryptCb(pw, salt, len, o, (e, k) => (e ? rej(e) : res(k))));

// scrypt is memory-hard: N=2^15, r=8 needs 32 MiB per hash, which is what makes GPU guessing dear.
const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LEN = 32;

/** Hash as `scrypt$N$r$p$salt$key` (base64), so parameters can be raised later without breaking old hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LEN, { ...PARAMS, maxmem: 128 * PARAMS.N * PARAMS.r * 2 });
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, key] = stored.split('$');
  if (alg !== 'scrypt' || !salt || !key) return false;
  const N = Number(n);
  const expected = Buffer.from(key, 'base64');
  const got = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N,
    r: Number(r),
    p: Number(p),
    maxmem: 128 * N * Number(r) * 2,
  });
  return timingSafeEqual(got, expected);
}

/** A fixed hash to verify against when the username is unknown, so both paths take the same time. */
export const DUMMY_HASH = await hashPassword('markless-timing-equaliser');

// 49k real leaked passwords shipped by zxcvbn-ts (MIT), compared case-insensitively.
const COMMON = new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()));
export const COMMON_PASSWORD_COUNT = COMMON.size;

/** 3–32 of a-z 0-9 . _, starting and ending with a letter or digit, with no two separators in a row. */
export const USERNAME = /^(?=.{3,32}$)[a-z0-9](?:[._]?[a-z0-9])*$/;

/**
 * Names a stranger could use to pass as the service or its staff. Compared after dropping dots
 * and underscores and up to four trailing digits, so `ad.min`, `root_` and `admin1` are reserved too
 * (no more digits than that: generated names such as `ops_1234567890` stay free).
 */
export const RESERVED_USERNAMES: ReadonlySet<string> = new Set([
  'admin',
  'administrator',
  'admins',
  'root',
  'system',
  'sysadmin',
  'superuser',
  'markless',
  'support',
  'api',
  'www',
  'help',
  'helpdesk',
  'security',
  'abuse',
  'postmaster',
  'hostmaster',
  'webmaster',
  'noreply',
  'operator',
  'staff',
  'moderator',
  'official',
  'service',
  'anonymous',
]);

export function isReservedUsername(username: string): boolean {
  const bare = username.replace(/[._]/g, '');
  return RESERVED_USERNAMES.has(bare) || RESERVED_USERNAMES.has(bare.replace(/\d{1,4}$/, '')) || bare.startsWith('markless');
}

// zxcvbn-ts (MIT) with its language-neutral dictionaries and keyboard graphs: it scores repeats
// (`aaaaaaaaa1`), sequences, keyboard walks, dates and leaked passwords, 0 (trivial) to 4.
// It runs on the event loop and its cost grows fast with length (worst pattern: several times as
// long at 128 characters as at 32), so only the first 32 characters are scored; a password whose
// first 32 characters are strong is strong (docs/security.md, "Accounts and security").
const zxcvbn = new ZxcvbnFactory({ dictionary: { ...dictionary }, graphs: adjacencyGraphs, maxLength: 32 });

/** The zxcvbn score (0–4) of `password`, counting the username as something an attacker would try. */
export const passwordScore = (password: string, username = ''): number => zxcvbn.check(password, username ? [username] : []).score;

/** Default for PASSWORD_MIN_SCORE: "safely unguessable" in zxcvbn's words (about 10^8 guesses or more). */
export const DEFAULT_MIN_SCORE = 3;

/** The first signup rule a username/password pair breaks, or null. Order matches the spec's table, new rules last of their kind. */
export function brokenRule(username: string, password: string, minScore = DEFAULT_MIN_SCORE): MessageCode | null {
  if (!USERNAME.test(username)) return 'username_invalid';
  if (isReservedUsername(username)) return 'username_reserved';
  if ([...password].length < 10) return 'password_too_short';
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(password)).length;
  if (classes < 2) return 'password_too_simple';
  if (COMMON.has(password.toLowerCase())) return 'password_common';
  if (passwordScore(password, username) < minScore) return 'password_weak';
  return null;
}
