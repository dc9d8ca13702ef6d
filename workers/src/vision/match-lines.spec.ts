import { describe, expect, it } from 'vitest';
import { textureImage } from '../../../test/support/images.js';
import { RecognitionEngine } from './engine.js';
import { verifyLocal } from './local-features.js';
import { linesFromPairs, matchLines } from './match-lines.js';
import { settingsFor, type Kind } from './settings.js';

describe('match lines', () => {
  it.each<Kind>(['tree', 'fruit'])(
    'drawn from the pairs verification kept equal those of matching again (%s)',
    async (kind) => {
      const engine = await RecognitionEngine.create();
      const [q, g] = await Promise.all([textureImage(51, 320), textureImage(51, 352)].map(async (p) => engine.describe(await p, { kind })));
      const s = settingsFor(kind);
      const ev = (await verifyLocal(q!.local, new Map([['g', g!.local]]), ['g'], s)).get('g')!;
      // Each inlier appears once as a pair, query index first.
      expect(ev.pairs.length).toBe(ev.inliers.length * 2);
      expect(Array.from(ev.pairs.filter((_, i) => i % 2 === 0))).toEqual(Array.from(ev.inliers));
      const again = await matchLines(q!.local, g!.local, s);
      const drawn = linesFromPairs(q!.local, g!.local, ev.pairs);
      expect(again!.inliers).toBeGreaterThan(8);
      expect(drawn).toEqual(again);
    },
    60_000,
  );

  it('draws nothing between features of different extractors', async () => {
    const engine = await RecognitionEngine.create();
    const p = await textureImage(52, 320);
    const [tree, fruit] = await Promise.all((['tree', 'fruit'] as const).map((kind) => engine.describe(p, { kind })));
    expect(linesFromPairs(tree!.local, fruit!.local, new Int32Array([0, 0]))).toBeNull();
  }, 60_000);
});
