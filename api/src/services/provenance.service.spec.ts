import { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { appendEvent, chainRoot } from '../../../shared/src/evidence/chain.js';
import type { SignedCheckpoint } from '../../../shared/src/evidence/checkpoint.js';
import { encodeRecord } from '../../../shared/src/evidence/record.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { toAnchorView, type AnchorRow } from '../../../shared/src/repos/evidence/anchor-store.js';
import type { StoredEvent } from '../../../shared/src/repos/evidence/chain-store.js';
import type { ResolvedEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import type { TreeRecordRow } from '../../../shared/src/repos/provenance.repo.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { Caller } from '../http/route.js';
import { createProvenanceService, type ProvenanceDeps } from './provenance.service.js';

const db = strictMock<Queryable>({}, 'db');
const OWNER = '11111111-1111-4111-8111-111111111111';
const STRANGER = '22222222-2222-4222-8222-222222222222';
const TREE = '33333333-3333-4333-8333-333333333333';
const IMG = 'bafkreiebzrnroamgos2adnbpgw5apo3z4iishhbdx77gldnbk57d4zdio4';
const caller = (id: string): Caller => ({ account_id: id, username: 'u', is_admin: false, token_hash: 'h' });
const tree: ResolvedEntity = { entity_type: 'tree', entity_id: TREE, owner_id: OWNER, farm_id: null };

const encoded = encodeRecord({ code: 'MKL-w3g-1', species: 'durian', geohash: 'w3g', images: [IMG], created_at: '2026-11-01T00:00:00Z' });
const rec: TreeRecordRow = {
  individual_id: TREE,
  code: 'MKL-w3g-1',
  record_cbor: Buffer.from(encoded.bytes),
  record_cid: encoded.cid,
  record_hash: encoded.hash,
  created_at: new Date('2026-11-01T00:00:00Z'),
};
/** The tree's chain: the enrolment naming the record, then a note. */
const chain: StoredEvent[] = [{ record_cid: encoded.cid }, { note: 'tưới' }]
  .reduce<ReturnType<typeof appendEvent>[]>(
    (c, body, i) => [...c, appendEvent(c, { entity_type: 'tree', entity_id: TREE, body, created_at: new Date(Date.UTC(2026, 10, 1 + i)) })],
    [],
  )
  .map((e, i) => ({ ...e, event_id: `e${i}`, owner_id: OWNER, author_id: OWNER, visibility: 'public', approval: 'approved' }));
const anchorRow = (status: string): AnchorRow =>
  ({
    id: 'a1',
    backend: 'local',
    status,
    size: 2,
    root_hex: chainRoot(chain),
    tx_hash: null,
    explorer_url: null,
    confirmations: 0,
    checkpoint_seq: 1,
    error: null,
    ttl_slot: null,
    entity_type: 'tree',
    entity_id: TREE,
    tx_cbor_hex: null,
    created_at: new Date(),
    updated_at: new Date(),
  }) as AnchorRow;
const anchored = (status: string) => ({ row: anchorRow(status), view: toAnchorView(anchorRow(status)) });
const checkpoint = { seq: 1, signer: 'did:key:zCheckpointSigner' } as unknown as SignedCheckpoint;

function service(over: Partial<Omit<ProvenanceDeps, 'records'>> & { records?: Partial<ProvenanceDeps['records']> } = {}) {
  const { records, ...rest } = over;
  return createProvenanceService({
    db,
    records: strictMock<ProvenanceDeps['records']>(records ?? {}, 'provenance repo'),
    resolveEntity: vi.fn(async (_q: Queryable, _t: string, id: string) => (id === TREE ? tree : null)),
    loadChain: strictMock<{ f: ProvenanceDeps['loadChain'] }>({}, 'chain').f,
    anchorMaterial: strictMock<{ f: ProvenanceDeps['anchorMaterial'] }>({}, 'anchors').f,
    commitmentFor: strictMock<{ f: ProvenanceDeps['commitmentFor'] }>({}, 'secret').f,
    anchors: strictMock<ProvenanceDeps['anchors']>({}, 'anchor service'),
    blobs: strictMock<ProvenanceDeps['blobs']>({}, 'blobs'),
    publicKey: null,
    ...rest,
  });
}

describe('provenance: whose tree', () => {
  it('answers another account’s tree exactly as a missing one, without reading any record', async () => {
    const s = service();
    const theirs = await s.provenance(caller(STRANGER), TREE).catch((e: unknown) => e);
    const missing = await s.provenance(caller(OWNER), STRANGER).catch((e: unknown) => e);
    expect(theirs).toMatchObject({ status: 404, code: 'not_found' });
    expect(missing).toEqual(theirs);
    await expect(s.exportBundle(caller(STRANGER), TREE)).rejects.toEqual(theirs);
  });

  it('answers the owner’s tree with no record as 404', async () => {
    await expect(service({ records: { treeRecord: async () => null } }).provenance(caller(OWNER), TREE)).rejects.toMatchObject({
      status: 404,
    });
  });

  it('summarises the owner’s tree: its record, every photo counted, the chain and no anchor yet', async () => {
    const s = service({
      records: { treeRecord: async () => rec, imageCount: async () => 5 },
      loadChain: async () => chain,
      anchors: strictMock<ProvenanceDeps['anchors']>({ current: async () => null }),
    });
    expect(await s.provenance(caller(OWNER), TREE)).toMatchObject({
      tree_id: TREE,
      code: 'MKL-w3g-1',
      record_cid: encoded.cid,
      images: [IMG],
      record_image_count: 1,
      image_count: 5,
      chain: { size: 2, root_hex: chainRoot(chain) },
      anchor_status: 'none',
      anchor: null,
    });
  });
});

describe('provenance: evidence bundles', () => {
  it('refuses a bundle with 409 while nothing usable is anchored, before reading the chain or the photos', async () => {
    for (const current of [null, anchored('pending'), anchored('failed')]) {
      const s = service({
        records: { treeRecord: async () => rec },
        anchors: strictMock<ProvenanceDeps['anchors']>({ current: async () => current }),
      });
      await expect(s.exportBundle(caller(OWNER), TREE)).rejects.toMatchObject({ status: 409, code: 'evidence_not_anchored' });
    }
  });

  it('bundles the record, its photos, the chain, the proof of the record’s event at the anchored size and the checkpoint with its salt', async () => {
    const commitmentFor = vi.fn(async () => ({ entity: `tree/${TREE}`, salt: 'c2FsdA', commitment: 'x' }));
    const s = service({
      records: { treeRecord: async () => rec },
      loadChain: async () => chain,
      anchors: strictMock<ProvenanceDeps['anchors']>({ current: async () => anchored('confirmed') }),
      blobs: strictMock<ProvenanceDeps['blobs']>({ get: async () => Buffer.from('jpeg') }),
      anchorMaterial: async () => ({ checkpoint }),
      commitmentFor,
    });
    const b = await s.exportBundle(caller(OWNER), TREE);
    expect(b).toMatchObject({ ok: true, tree_id: TREE, record: { cid: encoded.cid, hash: encoded.hash }, images: { [IMG]: 'anBlZw==' } });
    expect(b.events).toHaveLength(2);
    expect(b.proof).toMatchObject({ index: 0, root_hex: chainRoot(chain) });
    // No local key of its own any more: the checkpoint's signer is named.
    expect(b.anchor).toEqual({ backend: 'local', checkpoint, public_key: 'did:key:zCheckpointSigner', entity_salt: 'c2FsdA' });
    expect(commitmentFor).toHaveBeenCalledWith(db, 'tree', TREE, 2, chainRoot(chain));
  });

  it('answers a code that is not published exactly as an unknown one, asking no anchor', async () => {
    await expect(service({ records: { publishedTreeRecord: async () => null } }).publicExport('MKL-x')).rejects.toMatchObject({
      status: 404,
    });
  });

  it('answers another account’s fruit, and one with no record, as 404', async () => {
    const fruit: ResolvedEntity = { ...tree, entity_type: 'fruit' };
    const s = service({ resolveEntity: async () => fruit, records: { latestSideRecord: async () => null } });
    await expect(s.exportSideBundle(caller(STRANGER), 'fruit', TREE)).rejects.toMatchObject({ status: 404 });
    await expect(s.exportSideBundle(caller(OWNER), 'fruit', TREE)).rejects.toMatchObject({ status: 404 });
  });
});

describe('provenance: blobs', () => {
  const cid = 'bafkreiebzrnroamgos2adnbpgw5apo3z4iishhbdx77gldnbk57d4zdio4';

  it('answers a malformed cid without asking, and one the caller may not read without streaming, with the same 404', async () => {
    const readableBlob = vi.fn(async () => null);
    const s = service({ records: { readableBlob } });
    const bad = await s.blob(null, '../etc/passwd').catch((e: unknown) => e);
    expect(readableBlob).not.toHaveBeenCalled();
    const hidden = await s.blob(caller(STRANGER), cid).catch((e: unknown) => e);
    expect(readableBlob).toHaveBeenCalledWith(db, cid, STRANGER);
    expect(bad).toMatchObject({ status: 404 });
    expect(hidden).toEqual(bad);
  });

  it('streams a readable blob with its type and size, and a row whose bytes are gone is 404', async () => {
    const stream = Readable.from(['x']);
    const records = { readableBlob: async () => ({ content_type: 'image/jpeg', size: 1 }) };
    const s = service({ records, blobs: strictMock<ProvenanceDeps['blobs']>({ stream: async () => stream }) });
    expect(await s.blob(null, cid)).toEqual({ stream, contentType: 'image/jpeg', size: 1 });
    const lost = service({ records, blobs: strictMock<ProvenanceDeps['blobs']>({ stream: async () => null }) });
    await expect(lost.blob(null, cid)).rejects.toMatchObject({ status: 404 });
  });
});
