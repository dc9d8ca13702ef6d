import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { scopeOfJob } from '../access/owner-scope.js';
import { identifyVerdictsRepo } from './identify-verdicts.repo.js';

/** The labels the learning loop reads, on both databases the service runs on. */
describe.each(BOTH_DATABASES)('identify verdicts on $name', ({ open }) => {
  const [owner, other, cow, calf] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const [base, learned, theirs, fruit] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const [mine, others] = [scopeOfJob({ owner_id: owner }), scopeOfJob({ owner_id: other })];
  const evidence = [
    { individual_id: cow, evidence: { global: 0.9 } },
    { individual_id: calf, evidence: { global: 0.5 } },
  ];

  const opened = openDatabase(open, async (db) => {
    const query = (id: string, who: string, kind: string, learnedVersion: number | null, result: unknown) =>
      db.query(
        `insert into identify_queries (id, owner_id, kind, image_cids, result, evidence, learned_version) values ($1, $2, $3, $4, $5, $6, $7)`,
        [id, who, kind, ['q1', 'q2'], result, JSON.stringify(evidence), learnedVersion],
      );
    await query(base, owner, 'animal', null, { model: { version: 'v1' }, match: { individual_id: calf } });
    await query(learned, owner, 'animal', 3, { model: { version: 'v1' } });
    await query(theirs, other, 'animal', null, { model: { version: 'v1' } });
    await query(fruit, owner, 'fruit', null, { model: { version: 'v1' } });
    const label = (query: string, who: string, verdict: string, correct: string | null, at: string) =>
      db.query(`insert into identify_verdicts (id, query_id, owner_id, verdict, correct_id, created_at) values ($1, $2, $3, $4, $5, $6)`, [
        randomUUID(),
        query,
        who,
        verdict,
        correct,
        at,
      ]);
    await label(learned, owner, 'wrong', calf, '2026-01-02T00:00:00Z');
    await label(base, owner, 'correct', null, '2026-01-01T00:00:00Z');
    await label(theirs, other, 'unknown_ok', null, '2026-01-03T00:00:00Z');
    await label(fruit, owner, 'correct', null, '2026-01-04T00:00:00Z');
  });

  it('reads every owner’s labels of a kind with the evidence their query stored', async () => {
    const rows = await identifyVerdictsRepo.labelsOfKind(opened.db, 'animal');
    expect(rows.map((r) => r.verdict).sort()).toEqual(['correct', 'unknown_ok', 'wrong']);
    expect(rows[0]!.evidence).toEqual(evidence);
  });

  it('reads an owner’s own labels with the query photos and the answer’s top, oldest first', async () => {
    expect(await identifyVerdictsRepo.ownerLabelsWithPhotos(opened.db, mine, 'animal')).toEqual([
      { verdict: 'correct', correct_id: null, image_cids: ['q1', 'q2'], top: calf },
      // No match: the best-ranked candidate is the top.
      { verdict: 'wrong', correct_id: calf, image_cids: ['q1', 'q2'], top: cow },
    ]);
    expect(await identifyVerdictsRepo.ownerLabelsWithPhotos(opened.db, others, 'fruit')).toEqual([]);
  });

  it('reads an owner’s labels answered by one pipeline: engine version and learned version', async () => {
    const { db } = opened;
    expect((await identifyVerdictsRepo.ownerLabelsOfPipeline(db, mine, 'animal', 'v1', null)).map((r) => r.verdict)).toEqual(['correct']);
    expect(await identifyVerdictsRepo.ownerLabelsOfPipeline(db, mine, 'animal', 'v1', 3)).toEqual([
      { verdict: 'wrong', correct_id: calf, evidence },
    ]);
    expect(await identifyVerdictsRepo.ownerLabelsOfPipeline(db, mine, 'animal', 'v2', null)).toEqual([]);
  });

  it('stores a label and replaces it with the owner’s later one, one row per query and owner', async () => {
    const { db } = opened;
    const q = randomUUID();
    await db.query(`insert into identify_queries (id, owner_id, kind, image_cids, result) values ($1, $2, 'animal', '{}', '{}')`, [
      q,
      owner,
    ]);
    await identifyVerdictsRepo.upsert(db, mine, { query_id: q, verdict: 'wrong', correct_id: cow });
    await identifyVerdictsRepo.upsert(db, mine, { query_id: q, verdict: 'correct', correct_id: null });
    const rows = await db.query<{ verdict: string; correct_id: string | null }>(
      'select verdict, correct_id from identify_verdicts where query_id = $1',
      [q],
    );
    expect(rows.rows).toEqual([{ verdict: 'correct', correct_id: null }]);
  });
});
