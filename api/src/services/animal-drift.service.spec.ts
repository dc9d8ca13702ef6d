import { describe, expect, it, vi } from 'vitest';
import { scopeOfJob } from '../../../shared/src/access/owner-scope.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import { createAnimalDriftService, readAnswers, weakening, type AnimalDriftDeps } from './animal-drift.service.js';

const farm = new Set(['x', 'y', 'z']);
const at = (k: number) => new Date(Date.UTC(2026, 10, 1, 0, k));
const answer = (k: number, verdict: string, candidates: [string, number][]) => ({
  result: { verdict, candidates: candidates.map(([individual_id, probability]) => ({ individual_id, probability })) },
  evidence: null,
  created_at: at(k),
});

describe('the drift report reads stored answers', () => {
  it('counts as offered together only the two leading candidates of an uncertain answer, the runner-up close to the leader', () => {
    const { together } = readAnswers(
      [
        answer(1, 'uncertain', [
          ['x', 0.5],
          ['y', 0.45],
          ['z', 0.15],
        ]),
        answer(2, 'uncertain', [
          ['y', 0.6],
          ['x', 0.5],
          ['z', 0.3],
        ]),
        // The runner-up far behind the leader: not a pair about to be confused.
        answer(3, 'uncertain', [
          ['x', 0.9],
          ['z', 0.2],
        ]),
        // A match is no confusion at all.
        answer(4, 'match', [
          ['x', 0.99],
          ['y', 0.95],
        ]),
      ],
      farm,
    );
    expect(Object.fromEntries(together)).toEqual({ 'x|y': 2 });
  });

  it('flags an animal mostly uncertain only where its earlier answers were matches', () => {
    const rows = [
      // x: always uncertain (a threshold it never cleared, e.g. a species no dataset stood for).
      ...[1, 2, 3, 4, 5, 6].map((k) => answer(k, 'uncertain', [['x', 0.6]])),
      // y: matched, then uncertain at a probability barely lower (a change: drift).
      ...[1, 2, 3].map((k) => answer(10 + k, 'match', [['y', 0.99]])),
      ...[4, 5, 6].map((k) => answer(10 + k, 'uncertain', [['y', 0.95]])),
      // z: always matched, its probability falling by more than 0.1.
      ...[1, 2, 3].map((k) => answer(20 + k, 'match', [['z', 0.99]])),
      ...[4, 5, 6].map((k) => answer(20 + k, 'match', [['z', 0.85]])),
    ];
    const flagged = Object.fromEntries(weakening(readAnswers(rows, farm).answers).map((w) => [w.id, w.reason]));
    expect(flagged).toEqual({ y: 'mostly_uncertain', z: 'probability_dropping' });
  });
});

describe('the drift report, on its ports', () => {
  const unit = (x: number[]) => new Uint8Array(Float32Array.from(x).buffer);
  const embedding = (individual_id: string, v: number[], model_version = 'v1') => ({
    individual_id,
    global: unit(v),
    model_version,
    keypoints: 300,
  });

  it('reads the farm’s animals, its newest embeddings of one model version and the owner’s newest answers, bounded', async () => {
    const farmAnimals = vi.fn(async () => [
      { id: 'x', name: 'Bông' },
      { id: 'y', name: 'Mận' },
    ]);
    // Two photos each of x and y under v1 (alike across animals), and a v2 photo that must not be compared with them.
    const farmEmbeddings = vi.fn(async () => [
      embedding('x', [1, 0]),
      embedding('x', [0.99, 0.141]),
      embedding('y', [0.995, 0.0998]),
      embedding('y', [0.98, 0.199]),
      embedding('x', [0, 1], 'v2'),
    ]);
    const recentAnswers = vi.fn(async () => [
      answer(1, 'uncertain', [
        ['x', 0.5],
        ['y', 0.48],
      ]),
      answer(2, 'uncertain', [
        ['y', 0.52],
        ['x', 0.5],
      ]),
    ]);
    const db = strictMock<Queryable>({}, 'db');
    const drift = strictMock<AnimalDriftDeps['drift']>({ farmAnimals, farmEmbeddings, recentAnswers: recentAnswers as never });
    const s = createAnimalDriftService({ db, drift });
    const scope = scopeOfJob({ owner_id: 'owner-1' });
    const r = await s.report(scope, 'trai');
    expect(farmAnimals).toHaveBeenCalledWith(db, scope, 'trai');
    expect(farmEmbeddings).toHaveBeenCalledWith(db, scope, 'trai', 2000);
    expect(recentAnswers).toHaveBeenCalledWith(db, scope, 5000);
    expect(r).toMatchObject({ farm_id: 'trai', individuals_considered: 2, queries_considered: 2 });
    expect(r.confusable_pairs).toHaveLength(1);
    expect(r.confusable_pairs[0]).toMatchObject({
      a: { name: expect.any(String) },
      b: { name: expect.any(String) },
      uncertain_together: 2,
    });
    expect(r.confusable_pairs[0]!.channels).toEqual(['face', 'bio']);
  });
});
