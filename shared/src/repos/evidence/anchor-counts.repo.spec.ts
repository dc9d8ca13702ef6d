import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../../test/support/both-databases.js';
import { anchorCountsRepo } from './anchor-counts.repo.js';

describe.each(BOTH_DATABASES)('anchor counts on $name', ({ open }) => {
  const owner = randomUUID();
  const [tree, other] = [randomUUID(), randomUUID()];
  const events = [randomUUID(), randomUUID(), randomUUID()];
  const otherEvent = randomUUID();

  const event = (id: string, entityId: string, seq: number) =>
    opened.db.query(
      `insert into timeline_events (id, entity_type, entity_id, seq, owner_id, visibility, approval, body, created_at, prev_hash, leaf_hash)
       values ($1, 'tree', $2, $3, $4, 'private', 'approved', '{}'::jsonb, now(), 'p', 'l')`,
      [id, entityId, seq, owner],
    );
  const anchor = (entityId: string, size: number, backend: string, status: string) =>
    opened.db.query(
      `insert into anchors (id, entity_type, entity_id, size, root_hex, backend, status, owner_id) values ($1, 'tree', $2, $3, 'ab', $4, $5, $6)`,
      [randomUUID(), entityId, size, backend, status, owner],
    );

  const opened = openDatabase(open, async () => {
    for (const [i, id] of events.entries()) await event(id, tree, i);
    await event(otherEvent, other, 0);
    await anchor(tree, 3, 'local', 'failed');
    await anchor(tree, 3, 'local', 'failed');
    await anchor(tree, 3, 'local', 'confirmed');
    await anchor(tree, 3, 'cardano', 'failed');
    await anchor(tree, 2, 'local', 'failed');
    await anchor(other, 1, 'local', 'pending');
  });

  it('answers the chain’s length when the event is in it, and null when it is not', async () => {
    const { db } = opened;
    expect(await anchorCountsRepo.chainSizeWith(db, 'tree', tree, events[1]!)).toBe(3);
    expect(await anchorCountsRepo.chainSizeWith(db, 'tree', tree, otherEvent)).toBeNull();
    expect(await anchorCountsRepo.chainSizeWith(db, 'farm', tree, events[1]!)).toBeNull();
    expect(await anchorCountsRepo.chainSizeWith(db, 'tree', tree, randomUUID())).toBeNull();
  });

  it('counts a root’s failed anchorings per size and backend', async () => {
    const { db } = opened;
    expect(await anchorCountsRepo.failedAt(db, 'tree', tree, 3, 'local')).toBe(2);
    expect(await anchorCountsRepo.failedAt(db, 'tree', tree, 3, 'cardano')).toBe(1);
    expect(await anchorCountsRepo.failedAt(db, 'tree', tree, 2, 'local')).toBe(1);
    expect(await anchorCountsRepo.failedAt(db, 'tree', other, 1, 'local')).toBe(0);
  });

  it('counts a backend’s anchors by status, leaving out statuses it has none of', async () => {
    const { db } = opened;
    expect(await anchorCountsRepo.byStatus(db, 'local')).toEqual({ failed: 3, confirmed: 1, pending: 1 });
    expect(await anchorCountsRepo.byStatus(db, 'cardano')).toEqual({ failed: 1 });
  });
});
