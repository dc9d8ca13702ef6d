/**
 * The one CSV writer of the service: every CSV it sends or writes (batch results, the
 * data-science manifest) goes through {@link csvCell}.
 *
 * - RFC 4180: a cell holding `"`, `,`, CR or LF is quoted, inner quotes doubled.
 * - Formula injection (OWASP "CSV injection"): a text cell a spreadsheet would run as a formula
 *   gets a leading `'`. Spreadsheets skip leading spaces before `=` and friends, so a cell whose
 *   first non-blank character is `=`, `+`, `-` or `@`, or that starts with a tab or CR, counts too.
 *   Numbers are written as they are (a negative number is data, not a formula).
 */
const FORMULA_START = /^[\s\u00a0\ufeff]*[=+\-@]|^[\t\r]/;

/** True when a spreadsheet could take `s` for a formula. */
export const looksLikeFormula = (s: string): boolean => FORMULA_START.test(s);

/** One cell: null/undefined → empty; objects and arrays → JSON; text guarded and quoted. */
export function csvCell(v: unknown): string {
  if (v == null) return '';
  let s: string;
  if (typeof v === 'string') s = looksLikeFormula(v) ? `'${v}` : v;
  else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') s = String(v);
  else {
    // JSON of an object or array starts with { or [, never a formula; strings inside are data.
    s = JSON.stringify(v);
  }
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One CSV line of `cells`, ending with LF. */
export const csvRow = (cells: readonly unknown[]): string => cells.map(csvCell).join(',') + '\n';
