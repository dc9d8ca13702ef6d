import { randomUUID } from 'node:crypto';
import { scopeOfJob, type OwnerScope } from '../../../shared/src/access/owner-scope.js';
import type { Container } from '../../../shared/src/container.js';
import { UnrecoverableJobError } from '../../../shared/src/domain/errors.js';
import type { JobData, JobHandler, Kind } from '../../../shared/src/domain/jobs.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { Descriptor, RecognitionEngine } from '../vision/engine.js';
import { descriptorRow, qualityOf } from '../recognition/quality-row.js';
import { checkAlreadyEnrolled, describeAll } from './enroll-photos.js';
import type { Pools } from '../recognition/pool.js';
import { descriptorsRepo } from '../../../shared/src/repos/descriptors.repo.js';
import { imagesRepo } from '../../../shared/src/repos/images.repo.js';
import { individualsRepo } from '../../../shared/src/repos/individuals.repo.js';
import { treeRecordCode, writeTreeRecord, type TreeRecordRow } from '../../../shared/src/repos/evidence/tree-record.js';
import { pinSideRecord, writeSideRecord } from '../../../shared/src/repos/evidence/side-record-store.js';
import { encodeFruitRecord } from '../../../shared/src/evidence/side-record.js';
import { appendChainEvent } from '../../../shared/src/repos/evidence/chain-store.js';
import { animalDid } from '../../../shared/src/domain/animal-did.js';

export interface EnrollDeps {
  c: Container;
  engine: RecognitionEngine;
  /** The owner's pool, to warn before enrolling an animal that is already there. */
  pools?: Pools;
  /** Called after the rows are committed, so the owner's index can take the new vectors. */
  onEnrolled: (owner: OwnerScope, kind: Kind) => Promise<void>;
}

async function writeRows(deps: EnrollDeps, data: JobData<'enroll'>, described: { cid: string; source: string; d: Descriptor }[]) {
  return deps.c.db.transaction(async (tx) => {
    if (data.create) {
      const a = data.attrs as Record<string, unknown>;
      await individualsRepo.insertEnrolled(tx, scopeOfJob(data), {
        id: data.individual_id,
        kind: data.kind,
        farm_id: (a.farm_id as string | undefined) ?? null,
        tree_id: (a.tree_id as string | undefined) ?? null,
        species: (a.species as string | undefined) ?? null,
        name: (a.name as string | undefined) ?? null,
        lat: (a.lat as number | undefined) ?? null,
        lon: (a.lon as number | undefined) ?? null,
        attrs: a,
      });
    }
    if (!(await individualsRepo.isOwnLive(tx, data.individual_id, scopeOfJob(data))))
      throw new UnrecoverableJobError('individual not found', 404, 'not_found');
    const images: { image_id: string; cid: string }[] = [];
    // Photos new to the individual: a retry after a crash finds them stored and records nothing twice.
    const added: string[] = [];
    for (const { cid, source, d } of described) {
      const r = await imagesRepo.addToIndividual(tx, {
        id: randomUUID(),
        individual_id: data.individual_id,
        owner_id: data.owner_id,
        cid,
        source,
        in_record: data.create,
        width: d.width,
        height: d.height,
      });
      await descriptorsRepo.insert(tx, scopeOfJob(data), descriptorRow(r.id, d));
      images.push({ image_id: r.id, cid });
      if (r.inserted) added.push(cid);
    }
    if (data.kind === 'animal' && added.length) await recordAnimalPhotos(tx, data, added);
    const record = data.create && data.kind === 'tree' ? await writeRecord(deps, tx, data, described) : null;
    const side =
      data.create && data.kind === 'fruit' && deps.c.config.EVIDENCE_FRUIT_AND_BOUNDARIES
        ? await writeFruitRecord(tx, data, described)
        : null;
    return { images, record, side };
  });
}

/**
 * An animal's chain records what happened to it, as a tree's does (issue 24): its enrolment, then
 * each confirmed identification and each photo added, in the same transaction as the rows.
 */
async function recordAnimalPhotos(tx: Queryable, data: JobData<'enroll'>, cids: string[]) {
  const a = data.attrs as { species?: string; farm_id?: string; name?: string; query_id?: string };
  const source = data.images[0]?.source ?? 'enroll';
  const body = data.create
    ? {
        type: 'enroll',
        animal_did: animalDid(data.individual_id),
        species: a.species ?? null,
        farm_id: a.farm_id ?? null,
        name: a.name ?? null,
        images: cids,
      }
    : {
        type: source === 'confirm' ? 'identification_confirmed' : 'photos_added',
        animal_did: animalDid(data.individual_id),
        images: cids,
        source,
        ...(a.query_id ? { query_id: a.query_id } : {}),
      };
  await appendChainEvent(tx, {
    entity_type: 'animal',
    entity_id: data.individual_id,
    owner_id: data.owner_id,
    author_id: data.owner_id,
    author_role: 'owner',
    body,
  });
}

/** With EVIDENCE_FRUIT_AND_BOUNDARIES on, a fruit's first enrolment gets a canonical record (see side-record.ts). */
async function writeFruitRecord(tx: Queryable, data: JobData<'enroll'>, described: { cid: string }[]) {
  const treeId = (data.attrs as { tree_id?: string }).tree_id;
  const treeCode = treeId ? await treeRecordCode(tx, treeId) : null;
  const created = await individualsRepo.createdAt(tx, data.individual_id);
  const encoded = encodeFruitRecord({
    fruit_id: data.individual_id,
    tree_code: treeCode,
    images: described.map((x) => x.cid),
    created_at: created!,
  });
  const row = await writeSideRecord(tx, {
    entity_type: 'fruit',
    entity_id: data.individual_id,
    owner_id: data.owner_id,
    encoded,
    body_type: 'enroll',
  });
  return { ...row, encoded };
}

/**
 * A tree's first enrolment writes its code, canonical record and seq-0 timeline event in the
 * same transaction as its rows, so no tree ever exists without its evidence (or the reverse).
 */
function writeRecord(deps: EnrollDeps, tx: Queryable, data: JobData<'enroll'>, described: { cid: string }[]): Promise<TreeRecordRow> {
  const a = data.attrs as { species?: string; lat?: number; lon?: number };
  return writeTreeRecord(tx, {
    tree_id: data.individual_id,
    owner_id: data.owner_id,
    code_prefix: deps.c.config.CODE_PREFIX,
    species: a.species ?? null,
    lat: a.lat ?? null,
    lon: a.lon ?? null,
    image_cids: described.map((x) => x.cid),
  });
}

/** How far a fruit's evidence goes: server-only (the default) or a canonical, anchorable record. */
const fruitEvidence = (side: { record_cid: string; record_hash: string } | null) =>
  side ? { evidence: 'recorded', record_cid: side.record_cid, record_hash: side.record_hash } : { evidence: 'server_only' };

/**
 * Describe every photo, then write the individual, its images and their descriptors in one
 * transaction. Idempotent: a retry after a crash finds the same rows and adds none.
 */
export function enrollHandler(deps: EnrollDeps): JobHandler<'enroll'> {
  return async (data) => {
    const described = await describeAll(deps, data);
    await checkAlreadyEnrolled(deps, data, described);
    const { images, record, side } = await writeRows(deps, data, described);
    const pinner = deps.c.pinner;
    // Best effort, after commit: an unreachable IPFS node must not fail (or retry) an enrolment.
    const pinFailed = (err: unknown) => deps.c.logger.warn({ err, individual: data.individual_id }, 'pinning to Kubo failed');
    // A tree's record goes to IPFS when its owner publishes it (trees.service), never before:
    // pinning a private tree would put its photos on a public network.
    if (side && pinner)
      await pinSideRecord(
        { blobs: deps.c.blobs, pinner },
        side.encoded,
        described.map((x) => x.cid),
      ).catch(pinFailed);
    await deps.onEnrolled(scopeOfJob(data), data.kind);
    return {
      individual_id: data.individual_id,
      images: images.map((i, k) => ({
        ...i,
        width: described[k]!.d.width,
        height: described[k]!.d.height,
        quality: qualityOf(described[k]!.d),
        subject: described[k]!.d.subject,
        filename: described[k]!.filename,
        warnings: described[k]!.warnings,
      })),
      model: described[0]!.d.model,
      ...(record ? { code: record.code, record_cid: record.record_cid, record_hash: record.record_hash } : {}),
      ...(data.kind === 'fruit' && data.create ? fruitEvidence(side) : {}),
    };
  };
}
