import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Database } from '../ports/database.port.js';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { fruitPublicRepo as repo } from './fruit-public.repo.js';

describe.each(BOTH_DATABASES)('public fruit on $name', ({ open }) => {
  const owner = randomUUID();
  const ids = () => [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()] as const;
  const [pubTree, privTree, onPublic, onPrivate, loose, hidden, gone] = ids();
  const [img1, img2, img3] = [randomUUID(), randomUUID(), randomUUID()];
  const inMinutes = (m: number) => new Date(Date.now() + m * 60_000);

  const opened = openDatabase(open, async (db: Database) => {
    await db.query(`insert into accounts (id, username) values ($1, 'owner')`, [owner]);
    await db.query(
      `insert into individuals (id, owner_id, kind, tree_id, species, name, visibility, deleted_at, created_at) values
         ($1, $8, 'tree', null, null, null, 'public', null, now()),
         ($2, $8, 'tree', null, null, null, 'private', null, now()),
         ($3, $8, 'fruit', $1, 'durian', 'big one', 'public', null, now() - interval '1 day'),
         ($4, $8, 'fruit', $2, null, null, 'public', null, now()),
         ($5, $8, 'fruit', null, null, null, 'public', null, now()),
         ($6, $8, 'fruit', $1, null, null, 'private', null, now()),
         ($7, $8, 'fruit', null, null, null, 'public', now(), now())`,
      [pubTree, privTree, onPublic, onPrivate, loose, hidden, gone, owner],
    );
    await db.query(
      `insert into tree_records (individual_id, code, record_cbor, record_cid, record_hash) values ($1, 'MKL-pub', '\\xa0', 'b', 'h')`,
      [pubTree],
    );
    await db.query(
      `insert into blobs (cid, size, content_type) values ('c1', 1, 'image/jpeg'), ('c2', 1, 'image/jpeg'), ('c3', 1, 'image/jpeg')`,
    );
    await db.query(
      `insert into images (id, individual_id, owner_id, cid, source, created_at) values
         ($1, $4, $5, 'c1', 'enroll', now() - interval '3 minutes'), ($2, $4, $5, 'c2', 'enroll', now() - interval '2 minutes'),
         ($3, $4, $5, 'c3', 'enroll', now() - interval '1 minute')`,
      [img1, img2, img3, onPublic, owner],
    );
    await db.query(
      `insert into entity_records (entity_type, entity_id, record_cbor, record_cid, record_hash, created_at) values
         ('fruit', $1, '\\xa0', 'old-cid', 'old-hash', now() - interval '1 hour'), ('fruit', $1, '\\xa1', 'new-cid', 'new-hash', now())`,
      [onPublic],
    );
  });
  const db = () => opened.db;

  it('reads only live published fruit, with its tree only when the tree is published', async () => {
    expect(await repo.publicFruit(db(), [])).toEqual([]);
    const rows = await repo.publicFruit(db(), [onPublic, onPrivate, loose, hidden, gone, pubTree]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect([...byId.keys()].sort()).toEqual([onPublic, onPrivate, loose].sort());
    expect(byId.get(onPublic)).toMatchObject({ species: 'durian', name: 'big one', tree_id: pubTree, tree_public: true, code: 'MKL-pub' });
    expect(byId.get(onPublic)!.created_at).toBeInstanceOf(Date);
    expect(byId.get(onPrivate)).toMatchObject({ tree_id: null, tree_public: false, code: null });
    expect(byId.get(loose)).toMatchObject({ tree_id: null, tree_public: false, code: null });
  });

  it('reads photos with the preferred ones first, then oldest first, up to the limit; counts them', async () => {
    expect((await repo.photos(db(), onPublic, [img3], 2)).map((p) => p.id)).toEqual([img3, img1]);
    expect(await repo.photos(db(), onPublic, [], 5)).toEqual([
      { id: img1, cid: 'c1' },
      { id: img2, cid: 'c2' },
      { id: img3, cid: 'c3' },
    ]);
    expect(await repo.photoCount(db(), onPublic)).toBe(3);
    expect(await repo.photoCount(db(), loose)).toBe(0);
  });

  it('reads the newest evidence record, none for a fruit without one', async () => {
    expect(await repo.latestRecord(db(), onPublic)).toEqual({ record_cid: 'new-cid', record_hash: 'new-hash' });
    expect(await repo.latestRecord(db(), loose)).toBeNull();
  });

  it('stores a token, records one choice while it is unused and unexpired, and reads what is left of it', async () => {
    await repo.insertToken(db(), { hash: 't1', candidates: [onPublic, loose], expiresAt: inMinutes(5) });
    await repo.insertToken(db(), { hash: 't2', candidates: [loose], expiresAt: inMinutes(-1) });
    expect(await repo.token(db(), 't1')).toEqual({ candidates: [onPublic, loose], consumed_at: null, expires_at: expect.any(Date) });
    expect(await repo.token(db(), 'none')).toBeNull();
    expect(await repo.choose(db(), 't1', loose)).toBe(true);
    expect(await repo.choose(db(), 't1', onPublic)).toBe(false);
    expect((await repo.token(db(), 't1'))!.consumed_at).toBeInstanceOf(Date);
    expect(await repo.choose(db(), 't2', loose)).toBe(false);
    const r = await db().query<{ chosen_id: string }>(`select chosen_id from fruit_scan_tokens where hash = 't1'`);
    expect(r.rows).toEqual([{ chosen_id: loose }]);
  });

  it('sweeps tokens expired more than a day ago', async () => {
    await repo.insertToken(db(), { hash: 'old', candidates: [], expiresAt: inMinutes(-25 * 60) });
    await repo.sweepTokens(db());
    expect(await repo.token(db(), 'old')).toBeNull();
    expect(await repo.token(db(), 't2')).not.toBeNull();
  });
});
