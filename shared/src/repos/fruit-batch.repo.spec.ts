import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { fruitBatchRepo } from './fruit-batch.repo.js';

describe.each(BOTH_DATABASES)('fruit batches on $name', ({ open }) => {
  const [owner, tree, narrowed, plain] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];

  const opened = openDatabase(open, async (db) => {
    await db.query(`insert into accounts (id, username) values ($1, 'packer')`, [owner]);
    await db.query(`insert into individuals (id, owner_id, kind, name) values ($1, $2, 'tree', 'Cây táo')`, [tree, owner]);
    await db.query(
      `insert into tree_records (individual_id, code, record_cbor, record_cid, record_hash) values ($1, 'TAO-1', '\\x00', 'rc', 'rh')`,
      [tree],
    );
    await db.query(`insert into fruit_batches (id, owner_id, tree_id, total) values ($1, $3, $4, 4), ($2, $3, null, 1)`, [
      narrowed,
      plain,
      owner,
      tree,
    ]);
    await db.query(
      `insert into fruit_batch_rows (batch_id, idx, file_name, cid) values
        ($1, 2, 'c.jpg', 'cid-c'), ($1, 0, 'a.jpg', 'cid-a'), ($1, 1, 'bad.txt', null), ($1, 3, 'd.jpg', 'cid-d'), ($2, 0, 'x.jpg', 'cid-x')`,
      [narrowed, plain],
    );
  });

  it('gives each listed batch its first photos in row order and the tree it was narrowed to', async () => {
    const rows = await fruitBatchRepo(opened.db).listExtras([narrowed, plain, randomUUID()], 2);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(rows).toHaveLength(2);
    expect(byId.get(narrowed)).toEqual({ id: narrowed, tree_id: tree, tree_name: 'Cây táo', tree_code: 'TAO-1', cids: ['cid-a', 'cid-c'] });
    expect(byId.get(plain)).toEqual({ id: plain, tree_id: null, tree_name: null, tree_code: null, cids: ['cid-x'] });
    expect(await fruitBatchRepo(opened.db).listExtras([], 2)).toEqual([]);
  });

  it('reads back the worker time of each finished row, none for a row still pending', async () => {
    const repo = fruitBatchRepo(opened.db);
    const done = { status: 'done' as const, fruit_id: null, candidate: null, probability: null, verdict: 'no_match' };
    expect(await repo.finishRow(narrowed, 0, { ...done, work_ms: 120 })).toBe(true);
    expect(await repo.finishRow(narrowed, 1, { status: 'failed', reason_code: 'image_unusable', reason_params: {}, work_ms: 7 })).toBe(
      true,
    );
    expect(await repo.workTimes(narrowed)).toEqual([120, 7]);
    expect(await repo.workTimes(plain)).toEqual([]);
  });
});
