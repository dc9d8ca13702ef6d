import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue, loadProductStore, type BannedCatalogue, type ProductStore } from './catalogue.js';
import { decideMatch, type MatchInput } from './match-result.js';

describe('decideMatch', () => {
  let catalogue: BannedCatalogue;
  let products: ProductStore;
  beforeAll(async () => {
    catalogue = (await loadCatalogue(path.resolve('shared/data/care/banned.json')))!;
    products = (await loadProductStore(path.resolve('shared/data/care/products.json')))!;
  });
  const run = (over: Partial<MatchInput>) => decideMatch({ catalogue, products, lang: 'en', ...over });

  it('OCR outcomes: unavailable, nothing read, only punctuation read', () => {
    expect(run({ ocr: { state: 'unavailable' } })).toMatchObject({ reason: 'ocr_unavailable', banned_check: 'not_run' });
    expect(run({ ocr: { state: 'read', text: '  \n' } })).toMatchObject({ reason: 'ocr_no_text', banned_check: 'not_run' });
    expect(run({ ocr: { state: 'read', text: '|| -- ..' } })).toMatchObject({ reason: 'ocr_no_text', banned_check: 'not_run' });
    expect(run({ ocr: { state: 'read', text: 'Hoạt chất: Cacbofuran 3%' } })).toMatchObject({
      reason: 'banned_not_in_catalog',
      banned_check: 'ok',
    });
  });

  it('typed text wins over an OCR outcome', () => {
    expect(run({ text: 'Draxxin', ocr: { state: 'unavailable' } })).toMatchObject({ banned_check: 'ok', text_read: 'Draxxin' });
  });

  it('with no product store, a banned text is still banned_not_in_catalog and a clean one no_match', () => {
    expect(run({ products: null, text: 'carbofuran' })).toMatchObject({ candidates: [], reason: 'banned_not_in_catalog' });
    expect(run({ products: null, text: 'Draxxin' })).toMatchObject({ candidates: [], reason: 'no_match', banned_check: 'ok' });
  });

  it('neither catalogue nor products: no_match with banned_check unavailable, never banned_not_in_catalog', () => {
    const r = run({ catalogue: null, products: null, text: 'carbofuran' });
    expect(r).toMatchObject({ candidates: [], reason: 'no_match', banned: [], banned_check: 'unavailable' });
    expect(r.message).toBe(
      'The banned-ingredient list could not be checked right now, so it is not known whether the product contains one; no matching product was found in the product store.',
    );
  });

  it('a product named outright among ingredient-only hits is not ambiguous, and comes first', () => {
    const r = run({ text: 'Excede (ceftiofur)' });
    expect(r.reason).toBeUndefined();
    expect(r.candidates.map((c) => [c.id, c.matched_by])).toEqual([
      ['excede', 'name'],
      ['excenel_rte', 'ingredient'],
    ]);
  });
});
