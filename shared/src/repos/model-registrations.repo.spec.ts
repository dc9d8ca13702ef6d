import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOTH_DATABASES, type OpenDatabase } from '../../../test/support/both-databases.js';
import {
  insertRegistration,
  insertShadowScore,
  isRegistered,
  lastPromotedRetired,
  listRegistrations,
  promoteRegistration,
  registrationByRef,
  rollbackRegistration,
  servingDir,
  servingRegistration,
  shadowReport,
  type Registration,
} from './model-registrations.repo.js';

const reg = (name: string): Registration => ({
  id: randomUUID(),
  name,
  version: '1',
  dir: `/models/${name}@1`,
  status: 'shadow',
  shadow_share: 0.25,
  sha256: 'abc',
  licence: 'MIT',
});

/** Registered models, their promotion and rollback, and shadow scores, on both databases the service runs on. */
describe.each(BOTH_DATABASES)('model registrations on $name', ({ open }) => {
  let opened: OpenDatabase;
  const [a, b] = [reg('a'), reg('b')];

  beforeAll(async () => {
    opened = await open();
  }, 60_000);
  afterAll(async () => {
    await opened?.drop();
  });

  it('registers a model and reads it back by name and version', async () => {
    const { db } = opened;
    expect(await isRegistered(db, 'a', '1')).toBe(false);
    await insertRegistration(db, a, JSON.stringify({ name: 'a', version: '1', role: 'global-embedding' }));
    await insertRegistration(db, b, JSON.stringify({ name: 'b', version: '1' }));
    expect(await isRegistered(db, 'a', '1')).toBe(true);
    expect(await registrationByRef(db, 'a', '1')).toEqual(a);
    expect(await registrationByRef(db, 'a', '2')).toBeNull();
    expect(await registrationByRef(db, 'a', undefined)).toBeNull();
    const manifest = await db.query(`select manifest from model_registrations where id = $1`, [a.id]);
    expect(manifest.rows[0]).toEqual({ manifest: { name: 'a', version: '1', role: 'global-embedding' } });
    expect(await servingDir(db)).toBeNull();
    expect(await servingRegistration(db)).toBeUndefined();
  });

  it('promotes one at a time, and a rollback serves the one promoted before', async () => {
    const { db } = opened;
    await promoteRegistration(db, a.id);
    expect(await servingDir(db)).toBe(a.dir);
    await promoteRegistration(db, b.id);
    expect(await servingRegistration(db)).toEqual({ id: b.id, name: 'b', version: '1' });
    expect(await lastPromotedRetired(db)).toEqual({ id: a.id, name: 'a', version: '1' });
    await rollbackRegistration(db, b.id, a.id);
    expect((await listRegistrations({ db })).map((r) => [r.name, r.status])).toEqual([
      ['a', 'serving'],
      ['b', 'shadow'],
    ]);
    await rollbackRegistration(db, a.id, null);
    expect(await servingDir(db)).toBeNull();
  });

  it('keeps the first shadow score of a request, which the report counts', async () => {
    const { db } = opened;
    const [query, owner, top] = [randomUUID(), randomUUID(), randomUUID()];
    const score = {
      query_id: query,
      registration_id: a.id,
      owner_id: owner,
      engine: JSON.stringify({ name: 'a', version: '1' }),
      verdict: 'match',
      top1: top,
      probability: 0.9,
      served_top1: top,
      agrees: true,
      candidates: JSON.stringify([{ individual_id: top, probability: 0.9 }]),
    };
    await insertShadowScore(db, score);
    await insertShadowScore(db, { ...score, agrees: false, top1: null });
    const rows = await db.query('select top1, agrees, engine, candidates from shadow_scores');
    expect(rows.rows).toEqual([
      { top1: top, agrees: true, engine: { name: 'a', version: '1' }, candidates: [{ individual_id: top, probability: 0.9 }] },
    ]);
    const report = await shadowReport({ db });
    expect(report.find((r) => r.model === 'a@1')).toMatchObject({ scored: 1, agreement: 1, labelled: 0 });
  });
});
