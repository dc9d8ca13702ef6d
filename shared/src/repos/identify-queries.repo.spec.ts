import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { scopeOfJob } from '../access/owner-scope.js';
import { identifyQueriesRepo } from './identify-queries.repo.js';

describe.each(BOTH_DATABASES)('identify queries on $name', ({ open }) => {
  const owner = randomUUID();
  const mine = scopeOfJob({ owner_id: owner });
  const stranger = scopeOfJob({ owner_id: randomUUID() });

  const opened = openDatabase(open, async () => {
    await opened.db.query(`insert into accounts (id, username) values ($1, 'owner')`, [owner]);
  });

  it('stores an answer once: a retry under the same query id keeps the first', async () => {
    const id = randomUUID();
    const first = {
      id,
      kind: 'animal' as const,
      image_cids: ['cid-1', 'cid-2'],
      evidence: '[{"s":1}]',
      learned_version: 3,
    };
    await identifyQueriesRepo.insert(opened.db, mine, { ...first, result: { verdict: 'match' } });
    await identifyQueriesRepo.insert(opened.db, mine, { ...first, result: { verdict: 'no_match' }, learned_version: null });
    const rows = await opened.db.query<{
      owner_id: string;
      kind: string;
      image_cids: string[];
      result: unknown;
      evidence: unknown;
      learned_version: number | null;
    }>('select owner_id, kind, image_cids, result, evidence, learned_version from identify_queries where id = $1', [id]);
    expect(rows.rows).toHaveLength(1);
    expect(rows.rows[0]).toMatchObject({
      owner_id: owner,
      kind: 'animal',
      image_cids: ['cid-1', 'cid-2'],
      result: { verdict: 'match' },
      learned_version: 3,
    });
    expect(rows.rows[0]!.evidence).toEqual([{ s: 1 }]);
    expect(await identifyQueriesRepo.ownAnswer(opened.db, id, mine, 'animal')).toEqual({
      image_cids: ['cid-1', 'cid-2'],
      result: { verdict: 'match' },
    });
    // Another account's answer, or another kind's, reads as missing.
    expect(await identifyQueriesRepo.ownAnswer(opened.db, id, stranger, 'animal')).toBeNull();
    expect(await identifyQueriesRepo.ownAnswer(opened.db, id, mine, 'fruit')).toBeNull();
    expect(await identifyQueriesRepo.ownAnswer(opened.db, randomUUID(), mine, 'animal')).toBeNull();
    expect(await identifyQueriesRepo.ownKind(opened.db, id, mine)).toBe('animal');
    expect(await identifyQueriesRepo.ownKind(opened.db, id, stranger)).toBeNull();
  });

  it('lists the owner’s answers waiting for a decision, newest first, until a label takes one off', async () => {
    const { db } = opened;
    const ask = async (result: object, kind = 'animal', who = owner, minutesAgo = 0) => {
      const id = randomUUID();
      await db.query(
        `insert into identify_queries (id, owner_id, kind, image_cids, result, created_at) values ($1, $2, $3, '{c}', $4, now() - make_interval(mins => $5))`,
        [id, who, kind, result, minutesAgo],
      );
      return id;
    };
    const who = randomUUID();
    const reviewer = scopeOfJob({ owner_id: who });
    await db.query(`insert into accounts (id, username) values ($1, 'reviewer')`, [who]);
    const older = await ask({ verdict: 'uncertain' }, 'animal', who, 10);
    const closest = await ask({ verdict: 'no_match', closest: [{ individual_id: 'x' }] }, 'animal', who, 5);
    await ask({ verdict: 'no_match', closest: [] }, 'animal', who);
    await ask({ verdict: 'match' }, 'animal', who);
    const tree = await ask({ verdict: 'uncertain' }, 'tree', who, 1);
    await ask({ verdict: 'uncertain' }, 'animal', owner);
    expect(await identifyQueriesRepo.pendingCount(db, reviewer, null)).toBe(3);
    expect((await identifyQueriesRepo.pendingPage(db, reviewer, null, 10, 0)).map((r) => r.id)).toEqual([tree, closest, older]);
    expect((await identifyQueriesRepo.pendingPage(db, reviewer, 'animal', 1, 1)).map((r) => r.id)).toEqual([older]);
    await db.query(`insert into identify_verdicts (id, query_id, owner_id, verdict) values ($1, $2, $3, 'correct')`, [
      randomUUID(),
      older,
      who,
    ]);
    expect(await identifyQueriesRepo.pendingCount(db, reviewer, 'animal')).toBe(1);
  });
});
