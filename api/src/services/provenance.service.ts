import type { Readable } from 'node:stream';
import type { Container } from '../../../shared/src/container.js';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import { chainRoot, eventInclusionProof } from '../../../shared/src/evidence/chain.js';
import { decodeRecord } from '../../../shared/src/evidence/record.js';
import { decodeSideRecord } from '../../../shared/src/evidence/side-record.js';
import { anchorMaterial, type AnchorRow } from '../../../shared/src/repos/evidence/anchor-store.js';
import { toBundleJson, type EvidenceBundleJson } from '../../../shared/src/evidence/verify-cli/bundle.js';
import { loadChain, toChainEvent, type EntityType } from '../../../shared/src/repos/evidence/chain-store.js';
import { commitmentFor } from '../../../shared/src/repos/evidence/entity-secret.js';
import { resolveEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import type { AnchorFile } from '../../../shared/src/evidence/verify-cli/export-format.js';
import { BLOB_KEY } from '../../../shared/src/ports/blob-store.port.js';
import type { Caller } from '../http/route.js';
import type { AnchorService } from './anchor.service.js';

interface RecordRow {
  code: string;
  record_cbor: Buffer;
  record_cid: string;
  record_hash: string;
  created_at: Date;
}

/**
 * A tree's evidence for its owner: the provenance summary (spec: code, image CIDs, record CID,
 * hash, anchor status, true image count), the full export bundle for the offline verifier, and
 * the blobs by CID. Another account's tree and a missing one are the same 404.
 */
export function createProvenanceService(c: Container, deps: { anchors: AnchorService }) {
  async function ownedRecord(caller: Caller, treeId: string): Promise<{ treeId: string; rec: RecordRow }> {
    const tree = await resolveEntity(c.db, 'tree', treeId);
    if (!tree || tree.owner_id !== caller.account_id) throw ERRORS.notFound();
    const r = await c.db.query<RecordRow>(
      'select code, record_cbor, record_cid, record_hash, created_at from tree_records where individual_id = $1',
      [tree.entity_id],
    );
    if (!r.rows[0]) throw ERRORS.notFound();
    return { treeId: tree.entity_id, rec: r.rows[0] };
  }

  /**
   * Everything the offline verifier needs, as one JSON bundle: record bytes, the record's images,
   * the entity's own chain, a proof of the event naming the record in the latest anchored root,
   * and that anchor's checkpoint or signed transaction. 409 while nothing usable is anchored yet.
   */
  async function bundle(
    entityType: EntityType,
    entityId: string,
    rec: { record_cbor: Buffer; record_cid: string; record_hash: string },
    record: unknown,
    imageCids: readonly string[],
  ): Promise<EvidenceBundleJson> {
    const anchored = await deps.anchors.current(entityType, entityId);
    if (!anchored || anchored.view.status === 'failed' || anchored.view.status === 'pending')
      throw new AppError(409, 'evidence_not_anchored');
    const events = (await loadChain(c.db, entityType, entityId)).map(toChainEvent);
    // The newest event naming the record: a farm's boundary versions each have one.
    const recordSeq = events.map((e) => e.body.record_cid).lastIndexOf(rec.record_cid);
    const images = new Map<string, Uint8Array>();
    for (const cid of imageCids) {
      const bytes = await c.blobs.get(cid);
      if (bytes) images.set(cid, new Uint8Array(bytes));
    }
    return toBundleJson({
      recordBytes: new Uint8Array(rec.record_cbor),
      recordFile: { cid: rec.record_cid, hash: rec.record_hash, record },
      images,
      events,
      proof: eventInclusionProof(events, Math.max(0, recordSeq), anchored.row.size),
      anchor: await anchorFile(anchored.row),
    });
  }

  return {
    /** The provenance summary of one of the caller's trees. */
    async provenance(caller: Caller, treeIdIn: string) {
      const { treeId, rec } = await ownedRecord(caller, treeIdIn);
      const record = decodeRecord(new Uint8Array(rec.record_cbor));
      const count = await c.db.query<{ n: number }>('select count(*)::int as n from images where individual_id = $1', [treeId]);
      const chain = await loadChain(c.db, 'tree', treeId);
      const anchored = await deps.anchors.current('tree', treeId);
      return {
        ok: true as const,
        tree_id: treeId,
        code: rec.code,
        record_cid: rec.record_cid,
        record_hash: rec.record_hash,
        record,
        images: record.images,
        record_image_count: record.images.length,
        image_count: count.rows[0]!.n,
        chain: { size: chain.length, root_hex: chainRoot(chain) },
        anchor_status: anchored?.view.status ?? 'none',
        anchor: anchored?.view ?? null,
      };
    },

    /**
     * Everything the offline verifier needs, as one JSON bundle: record bytes, the record's images,
     * the tree's own chain, a proof of the enrolment event in the latest anchored root, and that
     * anchor's checkpoint or signed transaction. 409 while nothing usable is anchored yet.
     */
    async exportBundle(caller: Caller, treeIdIn: string): Promise<EvidenceBundleJson & { ok: true; tree_id: string }> {
      const { treeId, rec } = await ownedRecord(caller, treeIdIn);
      const record = decodeRecord(new Uint8Array(rec.record_cbor));
      return { ok: true, tree_id: treeId, ...(await bundle('tree', treeId, rec, record, record.images)) };
    },

    /**
     * The bundle of a published tree, by its code, for anyone: the same document the owner
     * exports. A private, restricted, missing or deleted tree is the same 404 as an unknown code.
     */
    async publicExport(code: string): Promise<EvidenceBundleJson & { ok: true; code: string }> {
      const r = await c.db.query<RecordRow & { individual_id: string }>(
        `select r.individual_id, r.code, r.record_cbor, r.record_cid, r.record_hash, r.created_at from tree_records r
           join individuals i on i.id = r.individual_id where r.code = $1 and i.visibility = 'public' and i.deleted_at is null`,
        [code],
      );
      const rec = r.rows[0];
      if (!rec) throw ERRORS.notFound();
      const record = decodeRecord(new Uint8Array(rec.record_cbor));
      return { ok: true, code: rec.code, ...(await bundle('tree', rec.individual_id, rec, record, record.images)) };
    },

    /**
     * The same bundle for a fruit's or a farm boundary's record (written only with
     * EVIDENCE_FRUIT_AND_BOUNDARIES on; a farm's newest boundary version). 404 when there is none.
     */
    async exportSideBundle(
      caller: Caller,
      entityType: 'fruit' | 'farm',
      entityIdIn: string,
    ): Promise<EvidenceBundleJson & { ok: true; entity_type: string; entity_id: string }> {
      const entity = await resolveEntity(c.db, entityType, entityIdIn, { callerId: caller.account_id });
      if (!entity || entity.owner_id !== caller.account_id) throw ERRORS.notFound();
      const r = await c.db.query<{ record_cbor: Buffer; record_cid: string; record_hash: string }>(
        'select record_cbor, record_cid, record_hash from entity_records where entity_type = $1 and entity_id = $2 order by created_at desc limit 1',
        [entityType, entity.entity_id],
      );
      const rec = r.rows[0];
      if (!rec) throw ERRORS.notFound();
      const record = decodeSideRecord(new Uint8Array(rec.record_cbor));
      const images = Array.isArray(record.images) ? record.images.map(String) : [];
      return {
        ok: true,
        entity_type: entityType,
        entity_id: entity.entity_id,
        ...(await bundle(entityType, entity.entity_id, rec, record, images)),
      };
    },

    /**
     * A stored blob, read-only, by CID. Served to an account that owns an image with that CID,
     * and to anyone when it is a photo named in the canonical record of a published (public) tree,
     * since the public record already lists that CID, and to anyone for any photo of a published
     * fruit (the public fruit lookup shows them); also to the owner of a population count that
     * carries it, to the owner and the author of a care entry whose packaging photo it is, and to
     * the account whose identify query it was. Everything else is the usual 404.
     */
    async blob(caller: Caller | null, cid: string): Promise<{ stream: Readable; contentType: string; size: number }> {
      if (!BLOB_KEY.test(cid)) throw ERRORS.notFound();
      // Owners fetch what they uploaded (photos and videos); a current grantee fetches the photos of
      // the individuals shared with them; anyone fetches photos named in a published tree's record.
      const owned = await c.db.query<{ content_type: string; size: number }>(
        `select b.content_type, b.size from blobs b where b.cid = $1 and (
           exists (select 1 from blob_owners o where o.cid = b.cid and o.owner_id = $2::uuid)
           or exists (
             select 1 from images i join individuals t on t.id = i.individual_id
              where i.cid = b.cid and t.deleted_at is null
                and (i.owner_id = $2::uuid or (i.in_record and t.kind = 'tree' and t.visibility = 'public')
                     or (t.kind = 'fruit' and t.visibility = 'public')
                     or exists (select 1 from grants g where g.owner_id = t.owner_id and g.grantee_id = $2::uuid
                                 and g.kind = t.kind and g.revoked_at is null)))
           or exists (select 1 from population_counts p where p.owner_id = $2::uuid and b.cid = any(p.media_cids))
           -- a care entry's packaging photo: its entity's owner and its author; an identify photo: who asked
           or exists (select 1 from care_entries ce where ce.photo_cid = b.cid and ce.deleted_at is null
                        and (ce.owner_id = $2::uuid or ce.author_id = $2::uuid))
           or exists (select 1 from identify_queries q where q.owner_id = $2::uuid and b.cid = any(q.image_cids))
           -- a packing batch's photo: the batch's owner (thumbnails of past batches)
           or exists (select 1 from fruit_batch_rows fr join fruit_batches fb on fb.id = fr.batch_id where fr.cid = b.cid and fb.owner_id = $2::uuid)
           -- and each view of a batch's fruit
           or exists (select 1 from fruit_batch_views fv join fruit_batches fb on fb.id = fv.batch_id where fv.cid = b.cid and fb.owner_id = $2::uuid))`,
        [cid, caller?.account_id ?? null],
      );
      const row = owned.rows[0];
      const stream = row ? await c.blobs.stream(cid) : null;
      if (!row || !stream) throw ERRORS.notFound();
      return { stream, contentType: row.content_type, size: Number(row.size) };
    },
  };

  async function anchorFile(row: AnchorRow): Promise<AnchorFile> {
    const m = await anchorMaterial(c.db, row);
    // The owner is shown the salt that opens the log's commitment to this entity (entity-commitment.ts).
    const { salt } = await commitmentFor(c.db, row.entity_type, row.entity_id, Number(row.size), row.root_hex);
    if (row.backend === 'cardano')
      return { backend: 'cardano', tx_hash: row.tx_hash ?? '', tx_cbor_hex: m.tx_cbor_hex ?? '', entity_salt: salt };
    if (!m.checkpoint) throw ERRORS.internal();
    // The service's own key when it still runs the local backend; else the key the checkpoint names.
    return { backend: 'local', checkpoint: m.checkpoint, public_key: c.anchor.publicKey ?? m.checkpoint.signer, entity_salt: salt };
  }
}

export type ProvenanceService = ReturnType<typeof createProvenanceService>;
