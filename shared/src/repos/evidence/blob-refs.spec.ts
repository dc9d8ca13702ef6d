import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../../test/support/both-databases.js';
import { addBlobOwner, clearStale, removeBlobOwner, stage, staleStaged, unstage } from './blob-refs.js';

describe.each(BOTH_DATABASES)('upload staging and uploaders on $name', ({ open }) => {
  const [owner, other] = [randomUUID(), randomUUID()];
  const staged = async (cid: string) =>
    Number((await opened.db.query<{ n: number }>('select count(*)::int as n from upload_staging where cid = $1', [cid])).rows[0]!.n);

  const opened = openDatabase(open, async () => {
    await opened.db.query(`insert into accounts (id, username) values ($1, 'owner'), ($2, 'other')`, [owner, other]);
    await opened.db.query(`insert into blobs (cid, size, content_type) values ('video-1', 1, 'video/mp4'), ('video-2', 1, 'video/mp4')`);
  });

  it('keeps one staging row per request, and a request removes only its own', async () => {
    await stage(opened.db, 'cid-a');
    await stage(opened.db, 'cid-a');
    expect(await staged('cid-a')).toBe(2);
    await unstage(opened.db, ['cid-a']);
    expect(await staged('cid-a')).toBe(1);
  });

  it('finds and clears only staging rows older than the grace', async () => {
    await stage(opened.db, 'cid-new');
    await opened.db.query(`insert into upload_staging (cid, created_at) values ('cid-old', now() - interval '2 hours')`);
    expect(await staleStaged(opened.db, 3600, 10)).toEqual(['cid-old']);
    await clearStale(opened.db, 'cid-new', 3600);
    await clearStale(opened.db, 'cid-old', 3600);
    expect(await staged('cid-new')).toBe(1);
    expect(await staged('cid-old')).toBe(0);
    expect(await staleStaged(opened.db, 3600, 10)).toEqual([]);
  });

  it('names an uploader once and removes only that account’s rows', async () => {
    await addBlobOwner(opened.db, 'video-1', owner);
    await addBlobOwner(opened.db, 'video-1', owner);
    await addBlobOwner(opened.db, 'video-1', other);
    await addBlobOwner(opened.db, 'video-2', owner);
    await removeBlobOwner(opened.db, ['video-1', 'video-2'], owner);
    const rows = await opened.db.query<{ cid: string; owner_id: string }>('select cid, owner_id from blob_owners order by cid');
    expect(rows.rows).toEqual([{ cid: 'video-1', owner_id: other }]);
  });
});
