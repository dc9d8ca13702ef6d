import { describe, expect, it } from 'vitest';
import { CODE_ALPHABET, NO_LOCATION_GEOHASH, TRACE_CODE_RE, coarseGeohash, codeSuffix, traceCode } from './trace-code.js';

const TREE = '0b9f3c1e-5a7d-4c2b-9e8f-1a2b3c4d5e6f';

describe('traceability codes', () => {
  it('has the shape PREFIX-geohash7-8 characters, without 0, O, 1 or I in the suffix', () => {
    const { code, geohash } = traceCode({ prefix: 'MKL', treeId: TREE, lat: 10.7626, lon: 106.6601 });
    expect(geohash).toBe('w3gv5p7');
    expect(code).toMatch(TRACE_CODE_RE);
    expect(code.startsWith('MKL-w3gv5p7-')).toBe(true);
    expect(CODE_ALPHABET).not.toMatch(/[01OI]/);
    expect(code.split('-')[2]).not.toMatch(/[01OI]/);
  });

  it('is stable for a tree and its coarse location, and differs between trees and locations', () => {
    const a = traceCode({ prefix: 'MKL', treeId: TREE, lat: 10.7626, lon: 106.6601 }).code;
    // A few metres away, same 7-character cell.
    expect(traceCode({ prefix: 'MKL', treeId: TREE, lat: 10.76261, lon: 106.66012 }).code).toBe(a);
    expect(traceCode({ prefix: 'MKL', treeId: TREE.replace('0b9f', '0b9e'), lat: 10.7626, lon: 106.6601 }).code).not.toBe(a);
    expect(traceCode({ prefix: 'MKL', treeId: TREE, lat: 11.5, lon: 106.6601 }).code).not.toBe(a);
  });

  it('falls back to the documented geohash without coordinates, and a retry gives another suffix', () => {
    expect(coarseGeohash(undefined, 106)).toBe(NO_LOCATION_GEOHASH);
    expect(traceCode({ prefix: 'ABC', treeId: TREE }).code).toMatch(/^ABC-0000000-/);
    expect(codeSuffix(TREE, '0000000', 1)).not.toBe(codeSuffix(TREE, '0000000', 0));
  });

  it('spreads suffixes over the whole alphabet', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 300; i++) for (const ch of codeSuffix(`tree-${i}`, 'w3gv5p7')) seen.add(ch);
    expect(seen.size).toBe(32);
  });
});
