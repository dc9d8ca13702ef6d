import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { dictionary } from '@zxcvbn-ts/language-common';
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
    N, r: Number(r), p: Number(p), maxmem: 128 * N * Number(r) * 2,
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

/** The first signup rule a username/password pair breaks, or null. Order matches the spec's table. */
export function brokenRule(username: string, password: string): MessageCode | null {
  if (!USERNAME.test(username)) return 'username_invalid';
  if ([...password].length < 10) return 'password_too_short';
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(password)).length;
  if (classes < 2) return 'password_too_simple';
  if (COMMON.has(password.toLowerCase())) return 'password_common';
  return null;
}
