import type { Container } from '../../../shared/src/container.js';
import { scopeOfJob } from '../../../shared/src/access/owner-scope.js';
import { UnrecoverableJobError } from '../../../shared/src/domain/errors.js';
import type { JobData } from '../../../shared/src/domain/jobs.js';
import type { Descriptor, RecognitionEngine } from '../vision/engine.js';
import { settingsFor } from '../vision/settings.js';
import { describeOrRefuse } from './describe.js';
import type { Pools } from '../recognition/pool.js';
import { animalDid } from '../../../shared/src/domain/animal-did.js';
import { alreadyShown } from './enrol-duplicate.js';
import { imagesRepo } from '../../../shared/src/repos/images.repo.js';
import { individualsRepo } from '../../../shared/src/repos/individuals.repo.js';
import { ownPool } from '../../../shared/src/access/pool-owners.js';

/** One refused photo of an enrolment: its place in the request, its name and every reason. */
export interface Refusal {
  index: number;
  filename: string;
  reasons: string[];
  /** True when the owner may keep the photo anyway (`accept_warnings`): dark, blurred, near-identical. */
  warning: boolean;
}

/** Reasons an owner may override; anything else (undecodable, too small, identical) is always refused. */
export const WARNING_REASONS: ReadonlySet<string> = new Set(['too_dark', 'too_blurred', 'near_identical']);

export interface DescribedPhoto {
  cid: string;
  source: string;
  filename: string;
  d: Descriptor;
  /** Warnings the owner accepted for this photo. */
  warnings: string[];
}

/**
 * Describe every photo of an enrolment and judge them all before refusing any, so one answer
 * names every refused photo (issue 24: owners took up to 34 tries, one file per answer). The
 * detector reports the box but never gates: a close-up with no detectable animal is described
 * whole, as identify does. Throws one 422 `photos_refused` listing every refusal.
 */
export async function describeAll(deps: { c: Container; engine: RecognitionEngine }, data: JobData<'enroll'>): Promise<DescribedPhoto[]> {
  const refused: Refusal[] = [...(data.refused ?? [])];
  const out: DescribedPhoto[] = [];
  const accept = data.accept_warnings === true;
  const subject = { require: settingsFor(data.kind).requireSubjectAtEnrol, report: true };
  for (const [index, img] of data.images.entries()) {
    let d: Descriptor;
    try {
      d = await describeOrRefuse(deps.c, deps.engine, img.cid, img.filename, data.kind, { enforceQuality: !accept, subject });
    } catch (err) {
      const e = err as UnrecoverableJobError;
      if (!(err instanceof UnrecoverableJobError)) throw err;
      const reasons =
        e.code === 'image_unusable'
          ? String(e.params.reasons ?? '')
              .split(',')
              .map((r) => r.trim())
              .filter(Boolean)
          : [String(e.code)];
      refused.push({ index, filename: img.filename, reasons, warning: reasons.every((r) => WARNING_REASONS.has(r)) });
      continue;
    }
    const prior = (data.refused ?? []).filter((r) => r.index === index).flatMap((r) => r.reasons);
    const warnings = [...prior, ...d.quality.reasons.filter((r) => WARNING_REASONS.has(r))];
    const hard = d.quality.reasons.filter((r) => !WARNING_REASONS.has(r));
    if (hard.length) refused.push({ index, filename: img.filename, reasons: [...d.quality.reasons], warning: false });
    else out.push({ cid: img.cid, source: img.source, filename: img.filename, d, warnings });
  }
  const blocking = refused.filter((r) => !(accept && r.warning));
  if (blocking.length) throw photosRefused(blocking.sort((a, b) => a.index - b.index));
  return out;
}

/** The one answer naming every refused photo (params are JSON: they cross the queue in distributed mode). */
export function photosRefused(refused: Refusal[]): UnrecoverableJobError {
  const reasons = [...new Set(refused.flatMap((r) => r.reasons))];
  return new UnrecoverableJobError('photos refused', 422, 'photos_refused', {
    field: 'files',
    count: refused.length,
    files: refused.map((r) => `${r.index + 1}. ${r.filename || '?'}`).join('; '),
    reasons: reasons.join(', '),
    refused,
    overridable: refused.every((r) => r.warning),
  });
}

/**
 * Before a new animal is created: do these photos already show one of the owner's animals?
 * Either a photo is byte-for-byte one of theirs, or they rank one of them first with strong
 * evidence (enrol-duplicate.ts). The owner is warned (422 `already_enrolled`, naming the animal
 * with its photos) and may add the photos to it instead, or enrol anyway with accept_warnings
 * (issue 24: the same photos became three animals silently; issue 39: other photos, a second).
 */
export async function checkAlreadyEnrolled(
  deps: { c: Container; engine: RecognitionEngine; pools?: Pools },
  data: JobData<'enroll'>,
  described: DescribedPhoto[],
): Promise<void> {
  if (data.kind !== 'animal' || !data.create || data.accept_warnings || !described.length) return;
  const same = await individualsRepo.animalWithPhoto(
    deps.c.db,
    scopeOfJob(data),
    described.map((d) => d.cid),
  );
  let hit: { id: string; name: string | null; probability: number; reason: string } | null = same
    ? { ...same, probability: 1, reason: 'same_photo' }
    : null;
  if (!hit && deps.pools) {
    const gallery = await deps.pools.gallery(ownPool(scopeOfJob(data)), { kind: 'animal', farmId: null, treeId: null });
    const calibration = deps.engine.calibrationFor('animal');
    const out = await deps.engine.identify({ kind: 'animal', queries: described.map((d) => d.d), gallery, calibration });
    const top = alreadyShown(out, calibration);
    if (top) {
      const name = await individualsRepo.nameOf(deps.c.db, top.individualId);
      const probability = Math.round(top.probability * 1e4) / 1e4;
      hit = { id: top.individualId, name, probability, reason: out.verdict === 'match' ? 'match' : 'looks_alike' };
    }
  }
  if (!hit) return;
  const photos = await imagesRepo.firstCids(deps.c.db, hit.id, 4);
  const shown = photos.map((cid) => ({ cid, url: `/api/blobs/${encodeURIComponent(cid)}` }));
  throw new UnrecoverableJobError('already enrolled', 422, 'already_enrolled', {
    field: 'files',
    reason: 'already_enrolled',
    name: hit.name ?? animalDid(hit.id),
    overridable: true,
    existing: {
      animal_did: animalDid(hit.id),
      individual_id: hit.id,
      name: hit.name,
      probability: hit.probability,
      evidence: hit.reason,
      photo_url: shown[0]?.url ?? null,
      photos: shown,
    },
  });
}
