import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOTH_DATABASES } from '../../../test/support/both-databases.js';
import { scopeOfJob } from '../../../shared/src/access/owner-scope.js';
import type { Database } from '../../../shared/src/ports/database.port.js';
import { calibrationPoolRepo as repo, type PoolCell } from '../../../shared/src/repos/calibration-pool.repo.js';
import { DEFAULT_CALIBRATION, type CalibrationParams } from '../vision/calibrate.js';
import { calibrationFor, type PooledServing } from './owner-calibration.js';

/** The pooled calibration's repository and the serving order, on both databases the service runs on. */
describe.each(BOTH_DATABASES)('calibration pool on $name', ({ open }) => {
  let db: Database;
  let drop: () => Promise<void>;
  const owner = randomUUID();
  const other = randomUUID();
  const cell: PoolCell = { kind: 'animal', engine_version: 'e1', species: 'cattle', band: 'small' };
  const params = (t: number): CalibrationParams => ({ ...DEFAULT_CALIBRATION, matchThreshold: t, source: 'pooled' });

  beforeAll(async () => {
    ({ db, drop } = await open());
    for (const [id, name] of [
      [owner, 'owner_a'],
      [other, 'owner_b'],
    ])
      await db.query('insert into accounts (id, username) values ($1, $2)', [id, name]);
  }, 60_000);
  afterAll(async () => {
    await drop?.();
  });

  const sample = (ownerId: string, ref: string, outcome: 'right' | 'wrong' | 'stranger') => ({
    ...cell,
    owner_id: ownerId,
    source: 'verdict',
    ref,
    views: 1,
    outcome,
    evidence: { global: 0.8, local: 10, globalMargin: 0.1, localMargin: 1, spread: 0.4 },
    labelled_at: new Date(),
  });

  it('keeps one sample per labelled answer: a relabel replaces it', async () => {
    await repo.upsertSample(db, sample(owner, 'q1', 'right'));
    await repo.upsertSample(db, sample(owner, 'q1', 'stranger'));
    await repo.upsertSample(db, sample(other, 'q2', 'wrong'));
    const rows = await repo.samplesOf(db, cell);
    expect(rows.map((r) => [r.ref, r.outcome])).toEqual([
      ['q1', 'stranger'],
      ['q2', 'wrong'],
    ]);
    // `*` takes every species of the kind.
    expect(await repo.samplesOf(db, { ...cell, species: '*' })).toHaveLength(2);
    expect(await repo.samplesOf(db, { ...cell, band: 'large' })).toHaveLength(0);
  });

  it("an owner who opts out loses their samples and is left out of every cell's samples", async () => {
    const theirs = scopeOfJob({ owner_id: other });
    expect(await repo.samplesOfOwner(db, theirs)).toBe(1);
    expect(await repo.setContributes(db, theirs, false)).toEqual({ deleted: 1 });
    expect(await repo.samplesOfOwner(db, theirs)).toBe(0);
    await repo.upsertSample(db, sample(other, 'q3', 'right'));
    expect((await repo.samplesOf(db, cell)).map((r) => r.ref)).toEqual(['q1']);
    expect(await repo.contributes(db, theirs)).toBe(false);
    await repo.setContributes(db, theirs, true);
  });

  it('promotes one serving version per cell, retires the one before, and rolls back to it', async () => {
    const a = await repo.insertVersion(db, cell, { params: params(0.9), report: {}, shadow: null, status: 'shadow' });
    await repo.promote(db, a);
    const b = await repo.insertVersion(db, cell, { params: params(0.8), report: {}, shadow: null, status: 'shadow' });
    await repo.promote(db, b);
    expect((await repo.serving(db, cell))!.id).toBe(b);
    expect((await repo.byId(db, a))!.status).toBe('retired');
    expect(await repo.rollback(db, b)).toBe(a);
    expect((await repo.serving(db, cell))!.id).toBe(a);
    expect((await repo.byId(db, b))!.status).toBe('rolled_back');
    expect(await repo.rollback(db, b)).toBeNull();
  });

  describe('the serving order', () => {
    const kind: CalibrationParams = {
      ...DEFAULT_CALIBRATION,
      matchThreshold: 0.95,
      vouched: { fmrUpper: 0.009, individuals: 40, queries: 900 },
    };
    const pooled: PooledServing = { id: 7, params: params(0.85), report: { owners: 5, samples: 900, fmr_upper: 0.008 }, created_at: '' };
    const fitOwner = async (o: string, pipeline: string) =>
      db.query('insert into owner_calibrations (owner_id, kind, pipeline, params, report) values ($1, $2, $3, $4, $5)', [
        o,
        'animal',
        pipeline,
        params(0.7),
        { n: 700, effective_n: 350, fmr_upper: 0.009, reason: null },
      ]);

    it("with no fit of the owner's own, the pooled calibration decides and says which version", async () => {
      const c = await calibrationFor(db, scopeOfJob({ owner_id: owner }), 'animal', 'p-base', kind, null, async () => pooled);
      expect(c.params.matchThreshold).toBe(0.85);
      expect(c.guard).toBeNull();
      expect(c.info).toMatchObject({ source: 'pooled', match_threshold: 0.85, false_match_bound: 0.008, samples: 900 });
      expect(c.info.reason).toMatch(/pooled from the confirmed answers of 5 owners .*\(version 7\)$/);
    });

    it("with neither, the kind's calibration decides", async () => {
      const c = await calibrationFor(db, scopeOfJob({ owner_id: owner }), 'animal', 'p-base', kind, null, async () => null);
      expect(c.info.source).toBe('kind_default');
      expect(c.params.matchThreshold).toBe(0.95);
    });

    it("the owner's own fit decides where it vouches, guarded by the one that would serve without it", async () => {
      await fitOwner(owner, 'p-own');
      const withPool = await calibrationFor(db, scopeOfJob({ owner_id: owner }), 'animal', 'p-own', kind, null, async () => pooled);
      expect(withPool.info.source).toBe('owner');
      expect(withPool.params.matchThreshold).toBe(0.7);
      expect(withPool.guard!.matchThreshold).toBe(0.85);
      const noPool = await calibrationFor(db, scopeOfJob({ owner_id: owner }), 'animal', 'p-own', kind, null, async () => null);
      expect(noPool.guard!.matchThreshold).toBe(0.95);
      // A kind calibration nothing vouched for guards nothing.
      const handSet = await calibrationFor(
        db,
        scopeOfJob({ owner_id: owner }),
        'animal',
        'p-own',
        DEFAULT_CALIBRATION,
        null,
        async () => null,
      );
      expect(handSet.guard).toBeNull();
    });

    it('is taken per number of photos: a pooled fit with no vouched pairs gives way to the kind calibration that has them', async () => {
      const pairs = (t: number) => ({ groupSize: 2, matchThreshold: t, queries: 400, falseMatches: 1, fmrUpper: 0.009 });
      const kindWithPairs: CalibrationParams = { ...kind, several: [pairs(0.97)] };
      const ask = (kd: CalibrationParams, pool: PooledServing, photos: number, pipeline = 'p-base') =>
        calibrationFor(db, scopeOfJob({ owner_id: owner }), 'animal', pipeline, kd, null, async () => pool, photos);

      // One photo: the pool vouches, whatever it holds for pairs.
      expect((await ask(kindWithPairs, pooled, 1)).info.source).toBe('pooled');
      // Two photos, and three (held to the first pair): the kind's pairs' threshold decides, and says why.
      for (const photos of [2, 3]) {
        const c = await ask(kindWithPairs, pooled, photos);
        expect(c.info.source).toBe('kind_default');
        expect(c.params.matchThreshold).toBe(0.95);
        expect(c.info.several).toEqual([expect.objectContaining({ photos: 2, match_threshold: 0.97 })]);
        expect(c.info.reason).toMatch(/pooled from other owners does not yet vouch for \d photos asked together/);
      }
      // A pool that vouches for pairs keeps them; a pool withholding them (1.01) gives way like none.
      expect((await ask(kindWithPairs, { ...pooled, params: { ...pooled.params, several: [pairs(0.9)] } }, 2)).info.source).toBe('pooled');
      expect((await ask(kindWithPairs, { ...pooled, params: { ...pooled.params, several: [pairs(1.01)] } }, 2)).info.source).toBe(
        'kind_default',
      );
      // Neither vouches for pairs: the pool still decides (every photo alone must then be a match).
      expect((await ask(kind, pooled, 2)).info.source).toBe('pooled');
      // The owner's own fit is guarded, for pairs, by the kind calibration the pool gave way to.
      await fitOwner(owner, 'p-own-pairs');
      expect((await ask(kindWithPairs, pooled, 2, 'p-own-pairs')).guard).toBe(kindWithPairs);
      expect((await ask(kindWithPairs, pooled, 1, 'p-own-pairs')).guard!.matchThreshold).toBe(0.85);
    });

    it("behind the owner's learned model the pool, fitted on the base model's scores, is never asked", async () => {
      let asked = false;
      const c = await calibrationFor(
        db,
        scopeOfJob({ owner_id: owner }),
        'animal',
        'p-learned',
        kind,
        { name: 'metric', version: '1' },
        async () => {
          asked = true;
          return pooled;
        },
      );
      expect(asked).toBe(false);
      expect(c.info.source).toBe('kind_default');
    });
  });
});
