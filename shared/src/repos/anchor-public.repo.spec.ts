import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { anchorPublicRepo as repo } from './anchor-public.repo.js';

describe.each(BOTH_DATABASES)('anchor public reads on $name', ({ open }) => {
  const owner = randomUUID();
  const [tree, hidden, gone, lonely] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const db = () => opened.db;
  const anchor = (entityId: string, size: number, backend: string, status: string, seq: number | null, ageS: number) =>
    db().query(
      `insert into anchors (id, entity_type, entity_id, size, root_hex, backend, status, owner_id, checkpoint_seq, tx_hash, confirmations, created_at)
       values ($1, 'tree', $2, $3, $4, $5, $6, $7, $8, $9, $10, now() - make_interval(secs => $11))`,
      [randomUUID(), entityId, size, `root${size}${status}`, backend, status, owner, seq, backend === 'cardano' ? 'tx1' : null, 3, ageS],
    );

  const opened = openDatabase(open, async () => {
    await db().query(`insert into accounts (id, username) values ($1, 'owner')`, [owner]);
    await db().query(
      `insert into individuals (id, owner_id, kind, visibility, deleted_at) values
         ($1, $4, 'tree', 'public', null), ($2, $4, 'tree', 'private', null), ($3, $4, 'tree', 'public', now())`,
      [tree, hidden, gone, owner],
    );
    for (const seq of [0, 1, 2])
      await db().query(`insert into checkpoint_log (seq, log_id, checkpoint, hash) values ($1, 'markless/MKL', $2, $3)`, [
        seq,
        { seq, signer: `did:key:z${seq}` },
        `h${seq}`,
      ]);
    await anchor(tree, 1, 'local', 'confirmed', 0, 30);
    await anchor(tree, 3, 'local', 'confirmed', 1, 20);
    await anchor(tree, 4, 'local', 'failed', null, 10);
    await anchor(tree, 5, 'local', 'pending', null, 5);
    await anchor(tree, 2, 'cardano', 'submitted', null, 15);
    await anchor(lonely, 2, 'local', 'failed', null, 1);
  });

  it('describes the largest anchor not failed, with its checkpoint; a failed one only when nothing else; never a pending one', async () => {
    expect(await repo.latestAnchor(db(), 'tree', tree)).toEqual({
      backend: 'local',
      status: 'confirmed',
      size: 3,
      root_hex: 'root3confirmed',
      tx_hash: null,
      explorer_url: null,
      confirmations: 3,
      checkpoint_seq: 1,
      checkpoint: { seq: 1, signer: 'did:key:z1' },
    });
    expect(await repo.latestAnchor(db(), 'tree', lonely)).toMatchObject({ status: 'failed', checkpoint: null });
    expect(await repo.latestAnchor(db(), 'fruit', tree)).toBeNull();
  });

  it('pages the checkpoint log oldest first and counts it', async () => {
    expect(await repo.checkpointsAfter(db(), -1, 2)).toEqual([
      { seq: 0, signer: 'did:key:z0' },
      { seq: 1, signer: 'did:key:z1' },
    ]);
    expect((await repo.checkpointsAfter(db(), 1, 10)).map((c) => c.seq)).toEqual([2]);
    expect(await repo.checkpointCount(db())).toBe(3);
  });

  it('knows a published individual only by its kind, while public and live', async () => {
    expect(await repo.isPublished(db(), tree, 'tree')).toBe(true);
    expect(await repo.isPublished(db(), tree, 'fruit')).toBe(false);
    expect(await repo.isPublished(db(), hidden, 'tree')).toBe(false);
    expect(await repo.isPublished(db(), gone, 'tree')).toBe(false);
  });

  it('answers the submitted or confirmed roots at the sizes asked, not failed or pending ones', async () => {
    const roots = await repo.anchoredRoots(db(), 'tree', tree, [1, 2, 4, 5]);
    expect(roots.sort((a, b) => a.size - b.size)).toEqual([
      { size: 1, root_hex: 'root1confirmed' },
      { size: 2, root_hex: 'root2submitted' },
    ]);
    expect(await repo.anchoredRoots(db(), 'tree', hidden, [1])).toEqual([]);
  });
});
