import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IndexedGallery, mapSource } from '../index/gallery.js';
import { OwnerIndex, type IndexRow } from '../index/owner-index.js';
import { readManifest } from './embed.js';
import { RecognitionEngine, type Descriptor } from './engine.js';
import { UndecodableImageError, UnusableImageError } from './intake.js';
import { fitSeveralScopes } from './open-set.js';
import { unpackFeatures } from './keypoints.js';
import { barkView } from './testing/synthetic.js';

const SEEDS = Array.from({ length: 10 }, (_, i) => 1000 + i);
const ENROL_VIEWS = [
  { left: 0, top: 0, size: 300 },
  { left: 180, top: 0, size: 300 },
  { left: 60, top: 180, size: 300, rotate: 90 },
];
/** Keypoints at 320 px keep the suite fast on two shared cores. */
const opts = { kind: 'tree' as const, settings: { localSide: 320, maxKeypoints: 300 } };
const root = mkdtempSync(join(tmpdir(), 'markless-engine-spec-'));
let engine: RecognitionEngine;
let gallery: IndexedGallery;
const enrolled = new Map<string, Descriptor>();

beforeAll(async () => {
  engine = await RecognitionEngine.create();
  const rows: IndexRow[] = [];
  const local = new Map<string, Uint8Array>();
  for (const seed of SEEDS) {
    for (const [v, view] of ENROL_VIEWS.entries()) {
      const d = await engine.describe(await barkView(seed, view), opts);
      const id = `${seed}-${v}`;
      rows.push({ id, individualId: `tree-${seed}`, kind: 'tree', vector: d.global });
      local.set(id, d.local);
      enrolled.set(id, d);
    }
  }
  const index = new OwnerIndex(join(root, 'owner'), engine.model.version, engine.dim);
  index.rebuild(rows);
  gallery = new IndexedGallery(index, { kind: 'tree' }, mapSource(local));
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('RecognitionEngine', () => {
  it('records the model name and version in every descriptor, and packs its keypoints', async () => {
    const d = await engine.describe(await barkView(1, { left: 0, top: 0, size: 300 }), opts);
    const m = readManifest();
    expect(d.model.name).toBe(m.name);
    // The engine version names every registry model it runs, so any model change re-embeds.
    expect(d.model.version).toBe(engine.model.version);
    expect(d.model.version.startsWith(`${m.version}+`)).toBe(true);
    for (const x of engine.models) expect(d.model.version).toContain(x.name === m.name ? x.version : `${x.name}@${x.version}`);
    // Trees use AKAZE on the whole photo: only the global model contributed.
    expect(d.models).toEqual([{ name: m.name, version: m.version }]);
    expect(d.subject).toBeNull();
    const f = unpackFeatures(d.local);
    expect(f.count).toBeGreaterThan(50);
    expect(d.local.byteLength).toBe(12 + f.count * (4 + f.descBytes));
  });

  it('identifies each enrolled texture from an unseen crop, rotation and brightness change', async () => {
    for (const seed of SEEDS) {
      const q = await engine.describe(await barkView(seed, { left: 100, top: 90, size: 280, rotate: 30, brightness: 1.25 }), opts);
      const res = await engine.identify({ kind: 'tree', queries: [q], gallery });
      expect(res.ranked[0]?.individualId).toBe(`tree-${seed}`);
      expect(res.verdict).toBe('match');
      expect(res.candidates[0]!.probability).toBeGreaterThan(res.ranked[1]?.probability ?? 0);
    }
  }, 120_000);

  it('fuses several frames of one subject into one answer', async () => {
    const frames: Descriptor[] = [];
    for (const left of [120, 140])
      frames.push(await engine.describe(await barkView(1003, { left, top: 150, size: 260, brightness: 0.8 }), opts));
    const res = await engine.identify({ kind: 'tree', queries: frames, gallery });
    expect(res.verdict).toBe('match');
    expect(res.candidates[0]!.individualId).toBe('tree-1003');
  }, 60_000);

  it('fits a several-photo threshold on pairs of held-out photos, and withholds it when the sample cannot vouch for 1%', async () => {
    const heldOut = [...enrolled]
      .filter(([id]) => !id.endsWith('-2'))
      .map(([id, d]) => ({ imageId: id, individualId: `tree-${id.split('-')[0]}`, descriptor: d }));
    const photosOf = (ind: string) => [...enrolled.keys()].filter((id) => `tree-${id.split('-')[0]}` === ind);
    const cal = engine.calibrationFor('tree');
    const fitted = await fitSeveralScopes(engine, { kind: 'tree', gallery, settings: opts.settings, calibration: cal }, heldOut, photosOf);
    // 10 trees × one pair: each asked with the pair hidden (the third view answers) and with the
    // tree hidden. Two held-out photos a tree make no group of 3 or 4, so those sizes are absent.
    expect(fitted).toHaveLength(1);
    const several = fitted[0]!;
    expect(several).toMatchObject({ groupSize: 2, queries: 20, matchThreshold: 1.01 });
    expect(several.fmrUpper).toBeGreaterThan(0.01);
    // Withheld, the every-photo rule decides: two frames of an enrolled tree, each a match alone, are a match...
    const frames: Descriptor[] = [];
    for (const left of [120, 140])
      frames.push(await engine.describe(await barkView(1003, { left, top: 150, size: 260, brightness: 0.8 }), opts));
    const res = await engine.identify({ kind: 'tree', queries: frames, gallery, calibration: { ...cal, several: [several] } });
    expect(res.verdict).toBe('match');
    expect(res.candidates[0]!.individualId).toBe('tree-1003');
    for (const f of frames)
      expect((await engine.identify({ kind: 'tree', queries: [f], gallery, calibration: cal })).verdict).toBe('match');
    // ...while a vouched threshold above the fused probability makes them uncertain, and one below it a match.
    const above = { ...several, matchThreshold: Math.min(1, res.candidates[0]!.probability + 1e-6) };
    const strict = await engine.identify({ kind: 'tree', queries: frames, gallery, calibration: { ...cal, several: [above] } });
    expect(strict.verdict).toBe('uncertain');
    expect(strict.candidates[0]!.individualId).toBe('tree-1003');
    const below = { ...several, matchThreshold: res.candidates[0]!.probability - 1e-6 };
    expect((await engine.identify({ kind: 'tree', queries: frames, gallery, calibration: { ...cal, several: [below] } })).verdict).toBe(
      'match',
    );
    // Three frames, only pairs vouched: the first two frames, as a pair, decide (their probability is `res`'s).
    const three = [...frames, await engine.describe(await barkView(1003, { left: 160, top: 150, size: 260, brightness: 0.85 }), opts)];
    expect((await engine.identify({ kind: 'tree', queries: three, gallery, calibration: { ...cal, several: [below] } })).verdict).toBe(
      'match',
    );
    const strictThree = await engine.identify({ kind: 'tree', queries: three, gallery, calibration: { ...cal, several: [above] } });
    expect(strictThree.verdict).toBe('uncertain');
    expect(strictThree.candidates[0]!.individualId).toBe('tree-1003');
  }, 120_000);

  it('does not answer match for a texture that was never enrolled', async () => {
    for (const seed of [5001, 5002, 5003]) {
      const q = await engine.describe(await barkView(seed, { left: 100, top: 90, size: 280 }), opts);
      const res = await engine.identify({ kind: 'tree', queries: [q], gallery });
      expect(res.verdict).not.toBe('match');
    }
  }, 60_000);

  it('refuses descriptors from another model version', async () => {
    const q = await engine.describe(await barkView(1000, { left: 0, top: 0, size: 300 }), opts);
    const stale = { ...q, model: { ...q.model, version: '0.0.1' } };
    await expect(engine.identify({ kind: 'tree', queries: [stale], gallery })).rejects.toThrow(/0\.0\.1/);
  });

  it('surfaces intake errors with their reasons', async () => {
    await expect(engine.describe(new Uint8Array([1, 2, 3]), opts)).rejects.toBeInstanceOf(UndecodableImageError);
    const sharpLib = (await import('sharp')).default;
    const tiny = await sharpLib(await barkView(1, { left: 0, top: 0, size: 300 }))
      .resize(30, 30)
      .jpeg()
      .toBuffer();
    const err = await engine.describe(tiny, opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnusableImageError);
    expect((err as UnusableImageError).reasons).toContain('too_small');
  });
});
