import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOTH_DATABASES, type OpenDatabase } from '../../../test/support/both-databases.js';
import { scopeOfJob } from '../access/owner-scope.js';
import { idempotentRepliesRepo as repo } from './idempotent-replies.repo.js';

describe.each(BOTH_DATABASES)('idempotent replies on $name', ({ open }) => {
  let opened: OpenDatabase;
  const [owner, other] = [randomUUID(), randomUUID()];
  const [mine, theirs] = [scopeOfJob({ owner_id: owner }), scopeOfJob({ owner_id: other })];

  beforeAll(async () => {
    opened = await open();
    for (const [id, name] of [
      [owner, 'owner'],
      [other, 'other'],
    ])
      await opened.db.query('insert into accounts (id, username) values ($1, $2)', [id, name]);
  }, 60_000);
  afterAll(async () => {
    await opened?.drop();
  });

  it("stores an answer under the owner's key, keeps the first while it is fresh, and finds it only for that owner", async () => {
    const { db } = opened;
    const first = { method: 'POST', path: '/api/tree/t1/event', status: 200, body: { ok: true, event_id: 'e1' } };
    await repo.keep(db, mine, 'k1', first, 7);
    await repo.keep(db, mine, 'k1', { ...first, status: 201, body: { ok: true, event_id: 'e2' } }, 7);
    expect(await repo.find(db, mine, 'k1', 7)).toEqual(first);
    expect(await repo.find(db, theirs, 'k1', 7)).toBeNull();
    expect(await repo.find(db, mine, 'k2', 7)).toBeNull();
  });

  it('forgets an answer older than the days it is kept, and a new one replaces it', async () => {
    const { db } = opened;
    const old = { method: 'POST', path: '/a', status: 200, body: { n: 1 } };
    await repo.keep(db, mine, 'k3', old, 7);
    await db.query(`update idempotent_replies set created_at = now() - interval '8 days' where key = 'k3'`);
    expect(await repo.find(db, mine, 'k3', 7)).toBeNull();
    const fresh = { method: 'PUT', path: '/b', status: 200, body: { n: 2 } };
    await repo.keep(db, mine, 'k3', fresh, 7);
    expect(await repo.find(db, mine, 'k3', 7)).toEqual(fresh);
  });
});
