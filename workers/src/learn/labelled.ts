/**
 * The owner's labelled data: every enrolled photo is labelled with its individual (individuals
 * with two or more photos give positives, the rest still give negatives), and every
 * `identify_verdict` that names an individual of the owner labels the query photos with it.
 */
import type { OwnerScope } from '../../../shared/src/access/owner-scope.js';
import type { Container } from '../../../shared/src/container.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import { identifyVerdictsRepo, type LabelWithPhotos } from '../../../shared/src/repos/identify-verdicts.repo.js';
import { individualsRepo } from '../../../shared/src/repos/individuals.repo.js';
import type { RecognitionEngine } from '../vision/engine.js';
import { bytesToVector } from '../recognition/bytes.js';
import type { Labelled } from './metric.js';
import { poolRows } from './pool-rows.js';
import { ownPool } from '../../../shared/src/access/pool-owners.js';

export interface OwnerLabels {
  samples: Labelled[];
  enrolledPhotos: number;
  verdictPhotos: number;
}

/** Enrolled photos of the owner's live individuals of one kind, described by the engine's current model. */
async function enrolled(c: Container, engine: RecognitionEngine, owner: OwnerScope, kind: Kind): Promise<Labelled[]> {
  const rows = await poolRows(c, engine, ownPool(owner), kind);
  return rows.map((x) => ({ label: x.individual_id, vector: bytesToVector(x.global) }));
}

type VerdictRow = LabelWithPhotos;

/** The individual a label says the query shows, if it says one. */
export function labelOf(v: Pick<VerdictRow, 'verdict' | 'correct_id' | 'top'>): string | null {
  if (v.verdict === 'correct') return v.top;
  if (v.verdict === 'wrong' || v.verdict === 'other') return v.correct_id;
  return null;
}

/**
 * The owner's `identify_verdict` labels that name one of its own live individuals: the label
 * and the query photos' CIDs, oldest first. Only the owner's own individuals: a label never
 * teaches one account about another's animals.
 */
export async function verdictLabels(c: Container, owner: OwnerScope, kind: Kind): Promise<{ label: string; cids: string[] }[]> {
  const labels = await identifyVerdictsRepo.ownerLabelsWithPhotos(c.db, owner, kind);
  const own = new Set(await individualsRepo.liveIdsOfKind(c.db, owner, kind));
  return labels.flatMap((v) => {
    const label = labelOf(v);
    return label && own.has(label) ? [{ label, cids: v.image_cids }] : [];
  });
}

/** Query photos labelled by the owner's verdicts, described afresh (queries keep no descriptor). */
async function fromVerdicts(c: Container, engine: RecognitionEngine, owner: OwnerScope, kind: Kind): Promise<Labelled[]> {
  const out: Labelled[] = [];
  for (const { label, cids } of await verdictLabels(c, owner, kind)) {
    for (const cid of cids) {
      const bytes = await c.blobs.get(cid);
      if (!bytes) continue;
      const d = await engine.describe(bytes, { kind, enforceQuality: false }).catch(() => null);
      if (d) out.push({ label, vector: d.global });
    }
  }
  return out;
}

/** `owner`: the account a learning job runs for (its payload's owner_id, or the operator's CLI argument). */
export async function ownerLabels(c: Container, engine: RecognitionEngine, owner: OwnerScope, kind: Kind): Promise<OwnerLabels> {
  const a = await enrolled(c, engine, owner, kind);
  const b = await fromVerdicts(c, engine, owner, kind);
  return { samples: [...a, ...b], enrolledPhotos: a.length, verdictPhotos: b.length };
}
