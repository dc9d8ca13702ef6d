/**
 * Small byte, hex, hash and time helpers shared by the evidence modules.
 *
 * Everything that crosses a JSON boundary (API bodies, export files) is
 * lowercase hex; everything hashed is bytes. Keeping the conversions in one
 * strict place means a malformed hex string is rejected once, the same way,
 * instead of being half-parsed by `Buffer.from(x, 'hex')` (which silently
 * stops at the first bad character).
 */
import { createHash } from 'node:crypto';

/** Raised for input that can never become valid evidence (bad hex, bad shape). */
export class EvidenceFormatError extends Error {
  override readonly name = 'EvidenceFormatError';
}

const HEX_RE = /^(?:[0-9a-f]{2})*$/;
const ISO_WITH_ZONE_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Lowercase hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/**
 * Strictly decodes hex (either case). Throws {@link EvidenceFormatError} on odd
 * length, non-hex characters, or when `expectedBytes` is given and differs.
 */
export function fromHex(hex: string, expectedBytes?: number, what = 'hex'): Uint8Array {
  const lower = typeof hex === 'string' ? hex.toLowerCase() : '';
  if (typeof hex !== 'string' || !HEX_RE.test(lower)) {
    throw new EvidenceFormatError(`${what} is not an even-length hex string`);
  }
  if (expectedBytes !== undefined && lower.length !== expectedBytes * 2) {
    throw new EvidenceFormatError(`${what} must be ${expectedBytes} bytes (${expectedBytes * 2} hex characters)`);
  }
  return new Uint8Array(Buffer.from(lower, 'hex'));
}

/** True when `hex` is exactly 32 bytes of lowercase hex (a SHA-256 digest as we print it). */
export function isHash32Hex(hex: unknown): hex is string {
  return typeof hex === 'string' && /^[0-9a-f]{64}$/.test(hex);
}

/** SHA-256 over the concatenation of `parts` (no copies of the parts are made). */
export function sha256(...parts: Uint8Array[]): Uint8Array {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

/** Constant-time-irrelevant equality of two byte arrays (all inputs here are public). */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

/**
 * Canonical timestamp: the exact form of `Date.prototype.toISOString()`
 * (UTC, millisecond precision, `Z`).
 *
 * Why normalise: the same instant written as `...T10:00:00Z` and
 * `...T10:00:00.000Z` would otherwise hash differently and a record re-built
 * by a third party from the "same" data would not match.
 */
export function canonicalTimestamp(value: string | Date, what = 'created_at'): string {
  const date = typeof value === 'string' ? new Date(value) : value;
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    throw new EvidenceFormatError(`${what} is not a valid ISO-8601 date`);
  }
  // Date.parse also takes "July 1, 2026", and reads a date-time without a zone
  // in the server's local time; evidence must not depend on where it is hashed.
  if (typeof value === 'string' && !ISO_WITH_ZONE_RE.test(value)) {
    throw new EvidenceFormatError(`${what} must be an ISO-8601 date-time with Z or a UTC offset`);
  }
  return date.toISOString();
}

/** Throws {@link EvidenceFormatError} unless `value` is a non-empty string. */
export function requireString(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new EvidenceFormatError(`${what} must be a non-empty string`);
  }
  return value;
}

/** Throws {@link EvidenceFormatError} unless `value` is a safe non-negative integer. */
export function requireCount(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new EvidenceFormatError(`${what} must be a non-negative integer`);
  }
  return value;
}
