import { describe, expect, it, vi } from 'vitest';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import { createTreeRef, type TreeRefDeps } from './tree-ref.js';

const db = strictMock<Queryable>({}, 'db');
const TREE = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';

describe('tree reference', () => {
  it('answers an id as itself, lower-cased, without a lookup', async () => {
    const ref = createTreeRef({ db, trees: strictMock<TreeRefDeps['trees']>() });
    expect(await ref(TREE.toUpperCase())).toBe(TREE);
  });

  it('looks a printed code up with its spaces removed', async () => {
    const idByCode = vi.fn(async () => TREE);
    const ref = createTreeRef({ db, trees: strictMock<TreeRefDeps['trees']>({ idByCode }) });
    expect(await ref(' MKL-w3g1 p1f-ab ')).toBe(TREE);
    expect(idByCode).toHaveBeenCalledWith(db, 'MKL-w3g1p1f-ab');
  });

  it('answers a code no live tree has with the same 404 as a missing id', async () => {
    const ref = createTreeRef({ db, trees: strictMock<TreeRefDeps['trees']>({ idByCode: async () => null }) });
    await expect(ref('MKL-nothing')).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });
});
