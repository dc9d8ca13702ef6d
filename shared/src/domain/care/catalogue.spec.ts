import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue, loadProductStore, type BannedCatalogue } from './catalogue.js';
import { fold, findTerm, tokens } from './normalize.js';

describe('care catalogue lookup', () => {
  let cat: BannedCatalogue;
  beforeAll(async () => {
    cat = (await loadCatalogue(path.resolve('shared/data/care/banned.json')))!;
  });
  const ids = (text: string) => cat.lookup(text).map((h) => h.id);

  it('folds Vietnamese diacritics and đ, case and punctuation', () => {
    expect(fold('Thuốc trừ sâu CACBOFURAN 3%')).toBe('thuoc tru sau cacbofuran 3');
    expect(fold('Đồng Tháp')).toBe('dong thap');
  });

  it('finds names, names without their parenthesis, synonyms, trade names, CAS numbers and Vietnamese spellings', () => {
    expect(ids('Lindane 20%')).toContain('lindane');
    expect(ids('gamma-BHC')).toContain('lindane');
    expect(ids('Gramoxone 20SL')).toEqual(['paraquat']);
    expect(ids('CAS 1563-66-2')).toEqual(['carbofuran']);
    expect(ids('Xanh Malachít')).toEqual(['malachite_green']);
    expect(ids('xanh malachit')).toEqual(['malachite_green']);
    expect(ids('Thuốc thú y Furazolidon')).toEqual(['nitrofurans']);
    expect(ids('Dietylstilbestrol')).toEqual(['des']);
  });

  it('tolerates one OCR slip in a long name, none in a short one', () => {
    expect(ids('Methamidophas 50EC')).toEqual(['methamidophos']);
    expect(ids('Carbo furan')).toEqual(['carbofuran']);
    expect(findTerm(tokens('DDX'), 'ddt')).toBeNull();
    expect(ids('chỉ dùng cho cây ăn quả, đọc kỹ hướng dẫn')).toEqual([]);
  });

  it('puts banned rows before restricted ones', () => {
    const hits = cat.lookup('phenylbutazone and carbofuran');
    expect(hits.map((h) => h.severity)).toEqual(['banned', 'restricted']);
  });

  it('every row carries sources with title, article, date and URL; ids are unique', () => {
    const seen = new Set<string>();
    for (const s of cat.substances) {
      expect(seen.has(s.id)).toBe(false);
      seen.add(s.id);
      expect(s.sources.length).toBeGreaterThan(0);
      for (const cas of s.cas) expect(cas).toMatch(/^\d{2,7}-\d{2}-\d$/);
    }
  });

  it('CAS numbers carry a valid check digit', () => {
    for (const s of cat.substances) {
      for (const cas of s.cas) {
        const digits = cas.replace(/-/g, '');
        const body = digits.slice(0, -1).split('').reverse();
        const sum = body.reduce((acc, d, i) => acc + Number(d) * (i + 1), 0);
        expect(sum % 10, `${s.id} ${cas}`).toBe(Number(digits.at(-1)));
      }
    }
  });

  it('the product store matches a brand by its name or its first word', async () => {
    const store = (await loadProductStore(path.resolve('shared/data/care/products.json')))!;
    expect(store.lookup('Baytril').map((h) => [h.product.id, h.by])).toEqual([['baytril100', 'name']]);
    expect(store.lookup('tulathromycin').map((h) => [h.product.id, h.by])).toEqual([['draxxin', 'ingredient']]);
  });
});
