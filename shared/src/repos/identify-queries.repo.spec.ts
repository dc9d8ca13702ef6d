import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOTH_DATABASES, type OpenDatabase } from '../../../test/support/both-databases.js';
import { identifyQueriesRepo } from './identify-queries.repo.js';

describe.each(BOTH_DATABASES)('identify queries on $name', ({ open }) => {
  let opened: OpenDatabase;
  const owner = randomUUID();

  beforeAll(async () => {
    opened = await open();
    await opened.db.query(`insert into accounts (id, username) values ($1, 'owner')`, [owner]);
  }, 60_000);
  afterAll(async () => {
    await opened?.drop();
  });

  it('stores an answer once: a retry under the same query id keeps the first', async () => {
    const id = randomUUID();
    const first = {
      id,
      owner_id: owner,
      kind: 'animal' as const,
      image_cids: ['cid-1', 'cid-2'],
      evidence: '[{"s":1}]',
      learned_version: 3,
    };
    await identifyQueriesRepo.insert(opened.db, { ...first, result: { verdict: 'match' } });
    await identifyQueriesRepo.insert(opened.db, { ...first, result: { verdict: 'no_match' }, learned_version: null });
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
    expect(await identifyQueriesRepo.ownAnswer(opened.db, id, owner, 'animal')).toEqual({
      image_cids: ['cid-1', 'cid-2'],
      result: { verdict: 'match' },
    });
    // Another account's answer, or another kind's, reads as missing.
    expect(await identifyQueriesRepo.ownAnswer(opened.db, id, randomUUID(), 'animal')).toBeNull();
    expect(await identifyQueriesRepo.ownAnswer(opened.db, id, owner, 'fruit')).toBeNull();
    expect(await identifyQueriesRepo.ownAnswer(opened.db, randomUUID(), owner, 'animal')).toBeNull();
    expect(await identifyQueriesRepo.ownKind(opened.db, id, owner)).toBe('animal');
    expect(await identifyQueriesRepo.ownKind(opened.db, id, randomUUID())).toBeNull();
  });
});
