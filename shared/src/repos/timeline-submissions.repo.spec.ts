import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { timelineSubmissionsRepo as repo } from './timeline-submissions.repo.js';

describe.each(BOTH_DATABASES)('timeline submissions on $name', ({ open }) => {
  const [owner, ana, bao] = [randomUUID(), randomUUID(), randomUUID()];
  const [tree, other] = [randomUUID(), randomUUID()];
  const db = () => opened.db;
  const submit = (authorId: string, entityId: string, body: Record<string, unknown>) =>
    repo.insert(db(), { entity_type: 'tree', entity_id: entityId, owner_id: owner, author_id: authorId, body });

  const opened = openDatabase(open, async () => {
    await db().query(`insert into accounts (id, username) values ($1, 'owner'), ($2, 'ana'), ($3, 'bao')`, [owner, ana, bao]);
  });

  it('stores a pending submission under a fresh id and lists it for everyone or for its author only, oldest first', async () => {
    const first = await submit(ana, tree, { note: 'một' });
    const second = await submit(bao, tree, { note: 'hai' });
    await submit(ana, other, { note: 'elsewhere' });
    expect(first).toMatchObject({ entity_type: 'tree', entity_id: tree, author_id: ana, body: { note: 'một' } });
    expect(first.created_at).toBeInstanceOf(Date);
    expect(first.id).not.toBe(second.id);
    expect((await repo.pending(db(), 'tree', tree)).map((s) => s.body.note)).toEqual(['một', 'hai']);
    expect((await repo.pending(db(), 'tree', tree, bao)).map((s) => s.body.note)).toEqual(['hai']);
    expect(await repo.pending(db(), 'tree', tree, owner)).toEqual([]);
    expect(await repo.pending(db(), 'fruit', tree)).toEqual([]);
  });

  it('counts an author’s last day on one entity, and the bytes all authors keep pending there', async () => {
    const recent = await repo.recentByAuthor(db(), ana, 'tree', tree);
    expect(recent.count).toBe(1);
    expect(recent.oldest).toBeInstanceOf(Date);
    expect(await repo.recentByAuthor(db(), owner, 'tree', tree)).toEqual({ count: 0, oldest: null });
    const load = await repo.pendingLoad(db(), 'tree', tree);
    expect(load.count).toBe(2);
    expect(load.bytes).toBeGreaterThan(0);
    expect(await repo.pendingLoad(db(), 'tree', randomUUID())).toEqual({ count: 0, bytes: 0 });
  });

  it('decides a pending submission once, only on its own entity, and a decided one leaves the pending list', async () => {
    const [first, second] = await repo.pending(db(), 'tree', tree);
    expect(await repo.decide(db(), { id: first!.id, entityType: 'tree', entityId: other, status: 'approved' })).toBeNull();
    expect(await repo.decide(db(), { id: first!.id, entityType: 'tree', entityId: tree, status: 'approved' })).toMatchObject({
      id: first!.id,
      author_id: ana,
      body: { note: 'một' },
    });
    expect(await repo.decide(db(), { id: first!.id, entityType: 'tree', entityId: tree, status: 'rejected' })).toBeNull();
    expect(await repo.decide(db(), { id: second!.id, entityType: 'tree', entityId: tree, status: 'rejected' })).not.toBeNull();
    expect(await repo.pending(db(), 'tree', tree)).toEqual([]);
    expect((await repo.pendingLoad(db(), 'tree', tree)).count).toBe(0);
    // Decided submissions still count towards their author's day.
    expect((await repo.recentByAuthor(db(), ana, 'tree', tree)).count).toBe(1);
  });

  it('takes the entity lock inside a transaction', async () => {
    await expect(opened.db.transaction((tx) => repo.lockEntity(tx, 'tree', tree))).resolves.toBeUndefined();
  });

  it('approves a legacy pending event in the chain, only on its own entity', async () => {
    const id = randomUUID();
    await db().query(
      `insert into timeline_events (id, entity_type, entity_id, seq, owner_id, visibility, approval, body, created_at, prev_hash, leaf_hash)
       values ($1, 'tree', $2, 0, $3, 'private', 'pending', '{}'::jsonb, now(), 'p', 'l')`,
      [id, tree, owner],
    );
    expect(await repo.approveChained(db(), id, 'tree', other)).toBe(false);
    expect(await repo.approveChained(db(), id, 'tree', tree)).toBe(true);
    const r = await db().query<{ approval: string; visibility: string }>('select approval, visibility from timeline_events where id = $1', [
      id,
    ]);
    expect(r.rows).toEqual([{ approval: 'approved', visibility: 'public' }]);
    expect(await repo.approveChained(db(), randomUUID(), 'tree', tree)).toBe(false);
  });
});
