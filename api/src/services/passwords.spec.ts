import { describe, expect, it } from 'vitest';
import { brokenRule, COMMON_PASSWORD_COUNT, hashPassword, passwordScore, verifyPassword } from './passwords.js';

describe('password rules', () => {
  it('draws on a real common-password list of at least 10,000 entries', () => {
    expect(COMMON_PASSWORD_COUNT).toBeGreaterThanOrEqual(10_000);
  });

  it.each([
    ['ab', 'Good-pass-123', 'username_invalid'],
    ['ok_user', 'Ab1!Ab1!A', 'password_too_short'],
    ['ok_user', 'abcdefghij', 'password_too_simple'],
    ['ok_user', 'QWERTY12345', 'password_common'],
    ['ok_user', 'Tuvxyzkmnq', null],
    // Two classes and not on the leaked list, yet trivial to guess: zxcvbn scores them 1.
    ['ok_user', 'aaaaaaaaa1', 'password_weak'],
    ['ok_user', 'Aaaaaaaaaa', 'password_weak'],
    // The username is among what an attacker tries first.
    ['mango.farmer', 'Mango.farmer1', 'password_weak'],
    ['admin', 'Good-pass-123', 'username_reserved'],
    ['root', 'Good-pass-123', 'username_reserved'],
    ['administrator', 'Good-pass-123', 'username_reserved'],
    ['ad.min', 'Good-pass-123', 'username_reserved'],
    ['root_1', 'Good-pass-123', 'username_reserved'],
    ['system', 'Good-pass-123', 'username_reserved'],
    ['support', 'Good-pass-123', 'username_reserved'],
    ['api', 'Good-pass-123', 'username_reserved'],
    ['markless_team', 'Good-pass-123', 'username_reserved'],
    ['admin_of_orchard', 'Good-pass-123', null],
    ['admin_2026', 'Good-pass-123', 'username_reserved'],
    ['support_1234567890', 'Good-pass-123', null],
    // Ten characters counted as characters, not UTF-16 units or bytes.
    ['ok_user', 'Ảnh-cây-🌳1', null],
  ])('brokenRule(%s, %s) = %s', (u, p, rule) => {
    expect(brokenRule(u, p)).toBe(rule);
  });

  it('takes the minimum score as a setting', () => {
    expect(brokenRule('ok_user', 'Tuvxyzkmnq', 4)).toBe('password_weak');
    expect(brokenRule('ok_user', 'aaaaaaaaa1', 0)).toBeNull();
    expect(passwordScore('aaaaaaaaa1')).toBeLessThan(3);
    expect(passwordScore('Bark-and-peel-42')).toBeGreaterThanOrEqual(3);
  });

  it('counts an emoji as one character', () => {
    expect(brokenRule('ok_user', 'Abc🌳🌳🌳🌳🌳12')).toBeNull(); // 10 characters
    expect(brokenRule('ok_user', 'Abc🌳🌳🌳🌳🌳1')).toBe('password_too_short'); // 9 characters, 14 UTF-16 units
  });
});

describe('password hashing', () => {
  it('verifies the right password only, with a fresh salt each time', async () => {
    const a = await hashPassword('Bark-and-peel-42');
    const b = await hashPassword('Bark-and-peel-42');
    expect(a).not.toBe(b);
    expect(await verifyPassword('Bark-and-peel-42', a)).toBe(true);
    expect(await verifyPassword('Bark-and-peel-43', a)).toBe(false);
  });

  it('treats a stored value that is not an scrypt hash as a mismatch', async () => {
    expect(await verifyPassword('x', 'bcrypt$whatever')).toBe(false);
    expect(await verifyPassword('x', '')).toBe(false);
  });
});
