import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { freshIds } from '../../../test/support/fresh-ids.js';
import { operatorOf, scopeChosenByOperator, scopeOfJob } from '../access/owner-scope.js';
import { datasciExportRepo as repo } from './datasci-export.repo.js';

const START = { at: '1970-01-01T00:00:00Z', id: '00000000-0000-0000-0000-000000000000' };

describe.each(BOTH_DATABASES)('the data-science export’s reads on $name', ({ open }) => {
  const ids = freshIds(8);
  const [ana, bao, cow, sold, p1, p2, pSold, q1] = ids;
  const scope = (owner_id: string) => scopeOfJob({ owner_id });
  // Every owner's records: only an operator the admin check admitted may ask for them.
  const everyone = scopeChosenByOperator(operatorOf({ account_id: randomUUID(), is_admin: true, token_hash: 'h' }), null);

  const opened = openDatabase(open, async (db) => {
    await db.query(`insert into accounts (id, username) values ($1, 'ana'), ($2, 'bao')`, [ana, bao]);
    await db.query(`insert into individuals (id, owner_id, kind, name) values ($1, $3, 'animal', 'Bông'), ($2, $3, 'animal', 'Đã bán')`, [
      cow,
      sold,
      ana,
    ]);
    await db.query(`update individuals set deleted_at = now() where id = $1`, [sold]);
    await db.query(
      `insert into blobs (cid, size, content_type) values ('c1', 1, 'image/jpeg'), ('c2', 1, 'image/png'), ('c3', 1, 'image/jpeg')`,
    );
    await db.query(
      `insert into images (id, individual_id, owner_id, cid, source, created_at) values
        ($1, $4, $6, 'c1', 'enroll', now() - interval '2 hours'), ($2, $4, $6, 'c2', 'enroll', now() - interval '1 hour'), ($3, $5, $6, 'c3', 'enroll', now())`,
      [p1, p2, pSold, cow, sold, ana],
    );
    await db.query(
      `insert into identify_queries (id, owner_id, kind, image_cids, result) values ($1, $2, 'animal', '{c9}', '{"verdict":"match"}'), ($3, $4, 'animal', '{c8}', '{}')`,
      [q1, ana, randomUUID(), bao],
    );
    await db.query(`insert into identify_verdicts (id, query_id, owner_id, verdict, correct_id) values ($1, $2, $3, 'correct', $4)`, [
      randomUUID(),
      q1,
      ana,
      cow,
    ]);
  });

  it('pages live individuals’ photos oldest first after the cursor, with their content type', async () => {
    const first = await repo.galleryAfter(opened.db, scope(ana), START.at, START.id, 1);
    expect(first.map((r) => [r.image_id, r.content_type, r.name])).toEqual([[p1, 'image/jpeg', 'Bông']]);
    const next = await repo.galleryAfter(opened.db, scope(ana), first[0]!.at, first[0]!.image_id, 10);
    expect(next.map((r) => r.image_id)).toEqual([p2]);
    expect(await repo.galleryAfter(opened.db, scope(bao), START.at, START.id, 10)).toEqual([]);
    expect(await repo.count(opened.db, 'images', scope(ana), null)).toBe(2);
    expect(await repo.count(opened.db, 'images', everyone, { at: first[0]!.at, id: first[0]!.image_id })).toBe(1);
  });

  it('pages answers with their owner’s label, one owner’s or everyone’s', async () => {
    const mine = await repo.queriesAfter(opened.db, scope(ana), START.at, START.id, 10);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ id: q1, label: 'correct', correct_id: cow, result: { verdict: 'match' }, image_cids: ['c9'] });
    expect(await repo.queriesAfter(opened.db, everyone, START.at, START.id, 10)).toHaveLength(2);
    expect(await repo.count(opened.db, 'identify_queries', everyone, null)).toBe(2);
    expect(await repo.contentTypes(opened.db, ['c2', 'nope'])).toEqual([{ cid: 'c2', content_type: 'image/png' }]);
  });
});
