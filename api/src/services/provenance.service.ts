import type { Readable } from 'node:stream';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import { chainRoot, eventInclusionProof } from '../../../shared/src/evidence/chain.js';
import { decodeRecord } from '../../../shared/src/evidence/record.js';
import { decodeSideRecord } from '../../../shared/src/evidence/side-record.js';
import type { anchorMaterial, AnchorRow } from '../../../shared/src/repos/evidence/anchor-store.js';
import { toBundleJson, type EvidenceBundleJson } from '../../../shared/src/evidence/verify-cli/bundle.js';
import { toChainEvent, type EntityType, type loadChain } from '../../../shared/src/repos/evidence/chain-store.js';
import type { commitmentFor } from '../../../shared/src/repos/evidence/entity-secret.js';
import type { resolveEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import type { AnchorFile } from '../../../shared/src/evidence/verify-cli/export-format.js';
import { BLOB_KEY, type BlobStore } from '../../../shared/src/ports/blob-store.port.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { ProvenanceRepo, TreeRecordRow } from '../../../shared/src/repos/provenance.repo.js';
import type { Caller } from '../http/route.js';
import type { AnchorService } from './anchor.service.js';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { ownedBy } from '../../../shared/src/access/owned.js';

/** What provenance uses: the records, chains and anchors of the evidence store, and the blobs. */
export interface ProvenanceDeps {
  db: Queryable;
  records: Pick<ProvenanceRepo, 'treeRecord' | 'publishedTreeRecord' | 'latestSideRecord' | 'imageCount' | 'readableBlob'>;
  /** entity-owner's resolveEntity, chain-store's loadChain, anchor-store's anchorMaterial, entity-secret's commitmentFor. */
  resolveEntity: typeof resolveEntity;
  loadChain: typeof loadChain;
  anchorMaterial: typeof anchorMaterial;
  commitmentFor: typeof commitmentFor;
  anchors: Pick<AnchorService, 'current'>;
  blobs: Pick<BlobStore, 'get' | 'stream'>;
  /** The service's own anchoring key while it runs the local backend (the anchor port's publicKey). */
  publicKey: string | null;
}

/**
 * A tree's evidence for its owner: the provenance summary (spec: code, image CIDs, record CID,
 * hash, anchor status, true image count), the full export bundle for the offline verifier, and
 * the blobs by CID. Another account's tree and a missing one are the same 404.
 */
export function createProvenanceService(deps: ProvenanceDeps) {
  const { db, records } = deps;
  async function ownedRecord(caller: Caller, treeId: string): Promise<{ treeId: string; rec: TreeRecordRow }> {
    const tree = ownedBy(await deps.resolveEntity(db, 'tree', treeId), scopeOfCaller(caller));
    if (!tree) throw ERRORS.notFound();
    const rec = await records.treeRecord(db, tree.entity_id);
    if (!rec) throw ERRORS.notFound();
    return { treeId: tree.entity_id, rec };
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
    const events = (await deps.loadChain(db, entityType, entityId)).map(toChainEvent);
    // The newest event naming the record: a farm's boundary versions each have one.
    const recordSeq = events.map((e) => e.body.record_cid).lastIndexOf(rec.record_cid);
    const images = new Map<string, Uint8Array>();
    for (const cid of imageCids) {
      const bytes = await deps.blobs.get(cid);
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
      const imageCount = await records.imageCount(db, treeId);
      const chain = await deps.loadChain(db, 'tree', treeId);
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
        image_count: imageCount,
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
      const rec = await records.publishedTreeRecord(db, code);
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
      const scope = scopeOfCaller(caller);
      const entity = ownedBy(await deps.resolveEntity(db, entityType, entityIdIn, { owner: scope }), scope);
      if (!entity) throw ERRORS.notFound();
      const rec = await records.latestSideRecord(db, entityType, entity.entity_id);
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
      // Who may fetch which blob is the repository's readableBlob, in one statement.
      const row = await records.readableBlob(db, cid, caller?.account_id ?? null);
      const stream = row ? await deps.blobs.stream(cid) : null;
      if (!row || !stream) throw ERRORS.notFound();
      return { stream, contentType: row.content_type, size: row.size };
    },
  };

  async function anchorFile(row: AnchorRow): Promise<AnchorFile> {
    const m = await deps.anchorMaterial(db, row);
    // The owner is shown the salt that opens the log's commitment to this entity (entity-commitment.ts).
    const { salt } = await deps.commitmentFor(db, row.entity_type, row.entity_id, Number(row.size), row.root_hex);
    if (row.backend === 'cardano')
      return { backend: 'cardano', tx_hash: row.tx_hash ?? '', tx_cbor_hex: m.tx_cbor_hex ?? '', entity_salt: salt };
    if (!m.checkpoint) throw ERRORS.internal();
    // The service's own key when it still runs the local backend; else the key the checkpoint names.
    return { backend: 'local', checkpoint: m.checkpoint, public_key: deps.publicKey ?? m.checkpoint.signer, entity_salt: salt };
  }
}

export type ProvenanceService = ReturnType<typeof createProvenanceService>;
