import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../shared/src/config/config.js';
import { testEngine } from '../choose-engine.js';
import { cosine } from '../embed.js';
import type { GalleryLookup } from '../engine.js';
import { UnusableImageError } from '../intake.js';
import { unpackFeatures } from '../keypoints.js';
import { barkPixels } from './synthetic.js';
import { createDeterministicEngine, DETERMINISTIC_DIM, DETERMINISTIC_MODEL } from './deterministic-engine.js';

const bark = (seed: number) =>
  sharp(barkPixels(seed, 320), { raw: { width: 320, height: 320, channels: 3 } })
    .jpeg()
    .toBuffer();

describe('the deterministic test engine', () => {
  it('gives the same photo the same unit vector, another photo an unrelated one, and no keypoints', async () => {
    const engine = await createDeterministicEngine();
    const [a, b] = await Promise.all([bark(1), bark(2)]);
    const [d1, d2, d3] = await Promise.all([
      engine.describe(a, { kind: 'tree' }),
      engine.describe(a, { kind: 'tree' }),
      engine.describe(b, { kind: 'tree' }),
    ]);
    expect(d1.global).toHaveLength(DETERMINISTIC_DIM);
    expect(cosine(d1.global, d1.global)).toBeCloseTo(1, 5);
    expect([...d1.global]).toEqual([...d2.global]);
    expect(Math.abs(cosine(d1.global, d3.global))).toBeLessThan(0.6);
    expect(unpackFeatures(d1.local).count).toBe(0);
    expect(d1.model.name).toBe(DETERMINISTIC_MODEL.name);
    expect(engine.model.name).toBe(DETERMINISTIC_MODEL.name);
    expect(engine.dim).toBe(DETERMINISTIC_DIM);
  });

  it('keeps the real quality gate', async () => {
    const engine = await createDeterministicEngine();
    const dark = await sharp({ create: { width: 320, height: 320, channels: 3, background: '#000' } })
      .jpeg()
      .toBuffer();
    await expect(engine.describe(dark, { kind: 'tree' })).rejects.toBeInstanceOf(UnusableImageError);
  });

  it('ranks the enrolled photo itself first, with no local evidence', async () => {
    const engine = await createDeterministicEngine();
    const photos = await Promise.all([3, 4, 5].map(bark));
    const ds = await Promise.all(photos.map((p) => engine.describe(p, { kind: 'tree' })));
    const gallery: GalleryLookup = {
      search: (q, k) =>
        ds
          .map((d, i) => ({ id: `img${i}`, individualId: `tree${i}`, similarity: cosine(q, d.global) }))
          .sort((x, y) => y.similarity - x.similarity)
          .slice(0, k),
      localFeatures: (ids) => new Map(ids.map((id) => [id, ds[Number(id.slice(3))]!.local])),
    };
    const r = await engine.identify({ kind: 'tree', queries: [ds[1]!], gallery });
    expect(r.ranked[0]!.individualId).toBe('tree1');
    expect(r.ranked[0]!.evidence.local).toBe(0);
  });

  it('is chosen only by MARKLESS_TEST_ENGINE, which the configuration refuses outside vitest', async () => {
    expect(testEngine(loadConfig({}))).toBeNull();
    const chosen = testEngine(loadConfig({ MARKLESS_TEST_ENGINE: 'deterministic' }));
    expect((await chosen!).model.name).toBe(DETERMINISTIC_MODEL.name);
    const vitest = process.env.VITEST;
    delete process.env.VITEST;
    try {
      expect(() => loadConfig({ MARKLESS_TEST_ENGINE: 'deterministic' })).toThrow(/MARKLESS_TEST_ENGINE/);
    } finally {
      process.env.VITEST = vitest;
    }
    expect(() => loadConfig({ MARKLESS_TEST_ENGINE: 'onnx' })).toThrow(/MARKLESS_TEST_ENGINE/);
  });
});
