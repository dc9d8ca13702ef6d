import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { provenanceRepo as repo } from './provenance.repo.js';

describe.each(BOTH_DATABASES)('provenance on $name', ({ open }) => {
  const [owner, grantee, stranger, farmer] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const [tree, hidden, fruit, gone] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const db = () => opened.db;
  const cids = ['uploaded', 'record', 'extra', 'fruit', 'hidden', 'count', 'care', 'query', 'batch', 'view', 'gone', 'stray'];

  const opened = openDatabase(open, async () => {
    await db().query(`insert into accounts (id, username) values ($1, 'owner'), ($2, 'grantee'), ($3, 'stranger'), ($4, 'farmer')`, [
      owner,
      grantee,
      stranger,
      farmer,
    ]);
    await db().query(
      `insert into individuals (id, owner_id, kind, visibility, deleted_at) values
         ($1, $5, 'tree', 'public', null), ($2, $5, 'tree', 'private', null), ($3, $6, 'fruit', 'public', null), ($4, $5, 'tree', 'public', now())`,
      [tree, hidden, fruit, gone, owner, farmer],
    );
    for (const cid of cids) await db().query(`insert into blobs (cid, size, content_type) values ($1, 7, 'image/jpeg')`, [cid]);
    await db().query(`insert into blob_owners (cid, owner_id) values ('uploaded', $1)`, [owner]);
    const image = (individual: string, who: string, cid: string, inRecord: boolean) =>
      db().query(`insert into images (id, individual_id, owner_id, cid, source, in_record) values ($1, $2, $3, $4, 'enroll', $5)`, [
        randomUUID(),
        individual,
        who,
        cid,
        inRecord,
      ]);
    await image(tree, owner, 'record', true);
    await image(tree, owner, 'extra', false);
    await image(fruit, farmer, 'fruit', false);
    await image(hidden, owner, 'hidden', true);
    await image(gone, owner, 'gone', true);
    await db().query(`insert into grants (owner_id, grantee_id, kind, access) values ($1, $2, 'tree', 'read')`, [owner, grantee]);
    await db().query(
      `insert into population_counts (id, owner_id, farm_id, zone, count, method, media_cids) values ($1, $2, 'f', 'z', 1, 'manual', '{count}')`,
      [randomUUID(), farmer],
    );
    await db().query(
      `insert into care_entries (id, author_id, owner_id, target_type, target_id, photo_cid) values ($1, $2, $3, 'tree', $4, 'care')`,
      [randomUUID(), grantee, owner, tree],
    );
    await db().query(`insert into identify_queries (id, owner_id, kind, image_cids, result) values ($1, $2, 'tree', '{query}', '{}')`, [
      randomUUID(),
      stranger,
    ]);
    const batch = randomUUID();
    await db().query(`insert into fruit_batches (id, owner_id, total) values ($1, $2, 1)`, [batch, farmer]);
    await db().query(`insert into fruit_batch_rows (batch_id, idx, file_name, cid) values ($1, 0, 'a.jpg', 'batch')`, [batch]);
    await db().query(`insert into fruit_batch_views (batch_id, idx, view, file_name, cid) values ($1, 0, 1, 'b.jpg', 'view')`, [batch]);
    await db().query(
      `insert into tree_records (individual_id, code, record_cbor, record_cid, record_hash) values
         ($1, 'MKL-pub', '\\x0102', 'rec-pub', 'h1'), ($2, 'MKL-priv', '\\x03', 'rec-priv', 'h2'), ($3, 'MKL-gone', '\\x04', 'rec-gone', 'h3')`,
      [tree, hidden, gone],
    );
    await db().query(
      `insert into entity_records (entity_type, entity_id, record_cbor, record_cid, record_hash, created_at) values
         ('farm', 'vuon', '\\x01', 'b1', 'h1', now() - interval '1 day'), ('farm', 'vuon', '\\x02', 'b2', 'h2', now())`,
    );
  });

  it('reads a tree’s record with its bytes, and by code only while the tree is published and live', async () => {
    const rec = await repo.treeRecord(db(), tree);
    expect(rec).toMatchObject({ individual_id: tree, code: 'MKL-pub', record_cid: 'rec-pub', record_hash: 'h1' });
    expect([...rec!.record_cbor]).toEqual([1, 2]);
    expect(rec!.created_at).toBeInstanceOf(Date);
    expect(await repo.treeRecord(db(), fruit)).toBeNull();
    expect((await repo.publishedTreeRecord(db(), 'MKL-pub'))?.individual_id).toBe(tree);
    expect(await repo.publishedTreeRecord(db(), 'MKL-priv')).toBeNull();
    expect(await repo.publishedTreeRecord(db(), 'MKL-gone')).toBeNull();
    expect(await repo.publishedTreeRecord(db(), 'MKL-none')).toBeNull();
  });

  it('reads the newest side record, and counts all of an individual’s photos', async () => {
    expect(await repo.latestSideRecord(db(), 'farm', 'vuon')).toMatchObject({ record_cid: 'b2', record_hash: 'h2' });
    expect(await repo.latestSideRecord(db(), 'fruit', 'vuon')).toBeNull();
    expect(await repo.imageCount(db(), tree)).toBe(2);
    expect(await repo.imageCount(db(), randomUUID())).toBe(0);
  });

  it('serves each blob to exactly those it belongs to', async () => {
    const readable = async (who: string | null) => {
      const out: string[] = [];
      for (const cid of cids) if (await repo.readableBlob(db(), cid, who)) out.push(cid);
      return out;
    };
    expect(await readable(null)).toEqual(['record', 'fruit']);
    expect(await readable(owner)).toEqual(['uploaded', 'record', 'extra', 'fruit', 'hidden', 'care']);
    expect(await readable(grantee)).toEqual(['record', 'extra', 'fruit', 'hidden', 'care']);
    expect(await readable(stranger)).toEqual(['record', 'fruit', 'query']);
    expect(await readable(farmer)).toEqual(['record', 'fruit', 'count', 'batch', 'view']);
    expect(await repo.readableBlob(db(), 'record', null)).toEqual({ content_type: 'image/jpeg', size: 7 });
  });

  it('stops serving a revoked grantee and a deleted care entry’s photo', async () => {
    await db().query(`update grants set revoked_at = now() where grantee_id = $1`, [grantee]);
    await db().query(`update care_entries set deleted_at = now(), photo_cid = 'care' where author_id = $1`, [grantee]);
    expect(await repo.readableBlob(db(), 'extra', grantee)).toBeNull();
    expect(await repo.readableBlob(db(), 'care', grantee)).toBeNull();
  });
});
