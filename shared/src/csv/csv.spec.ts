import { describe, expect, it } from 'vitest';
import { csvCell as batchCsvCell } from '../../../api/src/services/fruit-batch.service.js';
import { csvHeader, csvLine, decodeCursor, encodeCursor, EXPORT_COLUMNS, type ExportRow } from '../datasci/export-format.js';
import { csvCell, csvRow, looksLikeFormula } from './csv.js';

describe('the one CSV writer', () => {
  it.each([
    ['=1+1', `'=1+1`],
    ['+1', `'+1`],
    ['-1', `'-1`],
    ['@SUM(A1)', `'@SUM(A1)`],
    ['\t=1', `'\t=1`],
    ['\r=1', `"'\r=1"`],
    [' =HYPERLINK("http://x","y")', `"' =HYPERLINK(""http://x"",""y"")"`],
    ['  \t-2', `'  \t-2`],
    ['\u00a0@x', `'\u00a0@x`],
    ["=cmd|' /C calc'!A0", `'=cmd|' /C calc'!A0`],
  ])('guards a text cell a spreadsheet would run: %j → %j', (input, out) => {
    expect(csvCell(input)).toBe(out);
  });

  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['line\nbreak', '"line\nbreak"'],
    ['a=b', 'a=b'],
    ['', ''],
  ])('quotes per RFC 4180 and leaves harmless text alone: %j → %j', (input, out) => {
    expect(csvCell(input)).toBe(out);
  });

  it('writes numbers as numbers (a negative number is data), nulls empty, objects as quoted JSON', () => {
    expect(csvCell(-0.5)).toBe('-0.5');
    expect(csvCell(3)).toBe('3');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell([{ name: '=x', version: '1' }])).toBe('"[{""name"":""=x"",""version"":""1""}]"');
    expect(csvRow(['a', 1, null, '=2'])).toBe(`a,1,,'=2\n`);
    expect(looksLikeFormula('hello')).toBe(false);
  });

  it('is the writer behind the batch CSV and the data-science manifest', () => {
    expect(batchCsvCell).toBe(csvCell);
    const row = Object.fromEntries(EXPORT_COLUMNS.map((k) => [k, ''])) as unknown as ExportRow;
    Object.assign(row, { name: ' =HYPERLINK("http://evil","x")', species: '@cmd', farm_id: '\t+1', candidates: [], model_versions: [] });
    const line = csvLine(row);
    const cells = Object.fromEntries(EXPORT_COLUMNS.map((k, i) => [k, i]));
    // No cell of the manifest starts (after blanks) with a formula character.
    expect(line).toContain(`"' =HYPERLINK(""http://evil"",""x"")"`);
    expect(line).toContain(`,'@cmd,`);
    expect(line).toContain(`,'\t+1,`);
    expect(csvHeader()).toBe(EXPORT_COLUMNS.join(',') + '\n');
    expect(cells.name).toBeGreaterThan(0);
  });
});

describe('export cursors', () => {
  const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
  const good = { part: 'gallery', at: '2026-11-25 04:41:13.123456+00', id: '0b7e1a9e-5b3c-4d2a-9f10-2d3c4b5a6978' } as const;

  it('reads back what it wrote', () => {
    expect(decodeCursor(encodeCursor(good))).toEqual(good);
    expect(decodeCursor(encodeCursor({ ...good, part: 'query', at: '1970-01-01T00:00:00Z' }))).not.toBeNull();
  });

  it.each([
    ['the issue’s cursor', { part: 'gallery', at: '1' }],
    ['a time Date.parse accepts but PostgreSQL does not', { ...good, at: '1' }],
    ['a month 13', { ...good, at: '2026-13-01 00:00:00+00' }],
    ['30 February', { ...good, at: '2026-02-30 00:00:00+00' }],
    ['hour 24', { ...good, at: '2026-02-03 24:00:00+00' }],
    ['a bad part', { ...good, part: 'images' }],
    ['a bad id', { ...good, id: 'x' }],
    ['an extra key', { ...good, extra: 1 }],
    ['a number for at', { ...good, at: 12 }],
    ['not an object', [1, 2]],
    ['null', null],
    ['not JSON', 'nonsense{'],
  ])('refuses %s', (_, v) => {
    expect(decodeCursor(b64(v))).toBeNull();
  });

  it('refuses text that is not base64url', () => {
    expect(decodeCursor('nonsense!')).toBeNull();
    expect(decodeCursor('')).toBeNull();
    expect(decodeCursor('a'.repeat(401))).toBeNull();
  });
});
