import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../vision/testing/synthetic.js';
import { checksumIds, openOwnerIndex, OwnerIndex, type IndexRow } from './owner-index.js';

const DIM = 32;
const root = mkdtempSync(join(tmpdir(), 'markless-index-spec-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function rows(n: number): IndexRow[] {
  const rnd = mulberry32(99);
  return Array.from({ length: n }, (_, i) => {
    const v = Float32Array.from({ length: DIM }, () => rnd() - 0.5);
    const norm = Math.hypot(...v);
    return {
      id: `img-${i}`,
      individualId: `ind-${i % 20}`,
      kind: i % 3 === 0 ? 'fruit' : 'tree',
      farmId: i % 2 === 0 ? 'farm-a' : 'farm-b',
      vector: v.map((x) => x / norm),
    };
  });
}

describe('OwnerIndex', () => {
  const data = rows(300);
  const expected = { modelVersion: 'v1', count: data.length, idsChecksum: checksumIds(data.map((r) => r.id)) };

  it('rebuilds from rows after its files are deleted, with the same search results', async () => {
    const owner = `owner-${Date.now()}`;
    const first = await openOwnerIndex({ root, ownerId: owner, modelVersion: 'v1', dim: DIM, expected, loadRows: async () => data });
    expect(first.rebuilt).toBe(true);
    const q = data[5]!.vector;
    const before = first.index.search(q, 10, { kind: 'tree' });
    expect(before[0]!.id).toBe('img-5');

    const reopened = await openOwnerIndex({
      root,
      ownerId: owner,
      modelVersion: 'v1',
      dim: DIM,
      expected,
      loadRows: async () => {
        throw new Error('should load from disk');
      },
    });
    expect(reopened.rebuilt).toBe(false);
    expect(reopened.index.search(q, 10, { kind: 'tree' })).toEqual(before);

    rmSync(first.index.dir, { recursive: true, force: true });
    const rebuilt = await openOwnerIndex({ root, ownerId: owner, modelVersion: 'v1', dim: DIM, expected, loadRows: async () => data });
    expect(rebuilt.rebuilt).toBe(true);
    expect(rebuilt.index.search(q, 10, { kind: 'tree' })).toEqual(before);
  });

  it('is stale when the model version or the set of ids changes, and then rebuilds', async () => {
    const owner = `owner-stale-${Date.now()}`;
    const { index } = await openOwnerIndex({ root, ownerId: owner, modelVersion: 'v1', dim: DIM, expected, loadRows: async () => data });
    expect(index.isStale(expected)).toBe(false);
    expect(index.isStale({ ...expected, modelVersion: 'v2' })).toBe(true);
    const fewer = data.slice(1);
    const exp2 = { modelVersion: 'v1', count: fewer.length, idsChecksum: checksumIds(fewer.map((r) => r.id)) };
    expect(index.isStale(exp2)).toBe(true);
    const again = await openOwnerIndex({ root, ownerId: owner, modelVersion: 'v1', dim: DIM, expected: exp2, loadRows: async () => fewer });
    expect(again.rebuilt).toBe(true);
    expect(again.index.search(data[0]!.vector, 5, { kind: 'fruit' }).map((h) => h.id)).not.toContain('img-0');
  });

  it('filters by kind and farm, and removed rows disappear', () => {
    const idx = new OwnerIndex(join(root, 'filters'), 'v1', DIM);
    idx.rebuild(data);
    const hits = idx.search(data[4]!.vector, 50, { kind: 'tree', farmId: 'farm-a' });
    expect(hits.length).toBe(50);
    for (const h of hits) {
      const r = data.find((x) => x.id === h.id)!;
      expect(r.kind).toBe('tree');
      expect(r.farmId).toBe('farm-a');
    }
    idx.remove(['img-4']);
    expect(idx.search(data[4]!.vector, 5, { kind: 'tree' }).map((h) => h.id)).not.toContain('img-4');
  });
});
