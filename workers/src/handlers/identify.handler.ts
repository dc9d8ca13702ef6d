import type { FrameDetector, SurveyDeps } from '../survey/pipeline.js';
import type { Container } from '../../../shared/src/container.js';
import type { JobData, JobHandler, Kind } from '../../../shared/src/domain/jobs.js';
import type { Candidate, Descriptor, RecognitionEngine } from '../vision/engine.js';
import type { Pools } from '../recognition/pool.js';
import { animalDid } from '../../../shared/src/domain/animal-did.js';
import { scopeOfJob, type OwnerScope } from '../../../shared/src/access/owner-scope.js';
import { identifyQueriesRepo } from '../../../shared/src/repos/identify-queries.repo.js';
import { imagesRepo } from '../../../shared/src/repos/images.repo.js';
import { individualsRepo } from '../../../shared/src/repos/individuals.repo.js';
import { describeOrRefuse } from './describe.js';
import type { LearnedGalleries } from '../learn/gallery.js';
import { closestForReview } from './review.js';
import { calibrationFor, pipelineKey } from '../recognition/owner-calibration.js';
import { servingPooled } from '../recognition/pool-calibration.js';
import type { PoolFacts } from '../vision/kind-calibration.js';
import type { SearchPool } from '../../../shared/src/access/pool-owners.js';

export interface IdentifyDeps {
  c: Container;
  engine: RecognitionEngine;
  pools: Pools;
  /** Owners whose pools the caller may match against: itself, plus any who granted it access. */
  poolOwners: (searcher: OwnerScope, kind: Kind) => Promise<SearchPool>;
  /** Shadow models score the request after the answer is stored; they never change it. */
  shadow?: (data: JobData<'identify'>, served: { candidates?: { individual_id: string }[] }) => Promise<void>;
  /** The caller's adopted learned metric, when it has one (workers/src/learn). */
  learned?: LearnedGalleries;
  /**
   * Object detection on the engine pool (surveys): one look, every look at a frame, camera motion,
   * and how many frames it can take at once.
   */
  detect?: { run: FrameDetector['detect']; looks?: FrameDetector['detectLooks']; motion?: SurveyDeps['motion']; threads: number };
}

interface IndividualRow {
  id: string;
  owner_id: string;
  name: string | null;
  species: string | null;
  farm_id: string | null;
}

/** Candidates as the API shows them: who, how likely, and the enrolled photos that support it. */
async function present(c: Container, kind: Kind, cands: Candidate[]) {
  if (!cands.length) return [];
  const ids = cands.map((x) => x.individualId);
  const inds: IndividualRow[] = await individualsRepo.rowsOf(c.db, ids);
  const imageIds = cands.flatMap((x) => x.imageIds.slice(0, 3));
  const imgs = await imagesRepo.cidsOf(c.db, imageIds);
  const byInd = new Map(inds.map((r) => [r.id, r]));
  const cidOf = new Map(imgs.map((r) => [r.id, r.cid]));
  return cands.map((x) => {
    const ind = byInd.get(x.individualId);
    return {
      individual_id: x.individualId,
      ...(kind === 'animal' ? { animal_did: animalDid(x.individualId) } : {}),
      name: ind?.name ?? null,
      species: ind?.species ?? null,
      farm_id: ind?.farm_id ?? null,
      probability: Math.round(x.probability * 1e4) / 1e4,
      photos: x.imageIds.slice(0, 3).flatMap((id) => (cidOf.has(id) ? [{ image_id: id, cid: cidOf.get(id)! }] : [])),
    };
  });
}

/**
 * A species confirmed by a scan narrows the pool to individuals of that species (compared
 * NFC-trimmed and case-insensitively, like the scan's own list), within `only` when given.
 */
async function narrowBySpecies(
  c: Container,
  owners: SearchPool,
  kind: Kind,
  species: string | undefined,
  only?: ReadonlySet<string>,
): Promise<ReadonlySet<string> | undefined> {
  const key = species?.normalize('NFC').trim().toLowerCase();
  if (!key) return only;
  const rows = await individualsRepo.speciesOfPool(c.db, owners, kind);
  const ids = rows.filter((x) => x.species?.normalize('NFC').trim().toLowerCase() === key && (!only || only.has(x.id))).map((x) => x.id);
  return new Set(ids);
}

/**
 * What the shipped calibration needs of the animals searched (vision/kind-calibration.ts): their
 * one species (the confirmed one, else the only one the pool holds; null for a mixed pool) and how
 * many there are.
 */
async function poolFacts(
  c: Container,
  owners: SearchPool,
  kind: Kind,
  confirmed: string | undefined,
  farmId: string | null,
  only?: ReadonlySet<string>,
): Promise<PoolFacts> {
  const counts = await individualsRepo.speciesCounts(c.db, owners, kind, farmId, only);
  const individuals = counts.reduce((a, x) => a + x.n, 0);
  const species = confirmed?.trim() ? confirmed.normalize('NFC').trim().toLowerCase() : counts.length === 1 ? counts[0]!.species : null;
  return { species, individuals };
}

/**
 * Describe the query photos (or frames) and rank the caller's pool; `only` narrows the pool to
 * those individuals (the auto route's location filter).
 */
export async function identifyDescriptors(
  deps: IdentifyDeps,
  data: Pick<JobData<'identify'>, 'owner_id' | 'kind' | 'filters' | 'channels'>,
  queries: Descriptor[],
  only?: ReadonlySet<string>,
  /** `closest` for review (photos and match lines); a batch row shows none, so skips the work. */
  opts: { review?: boolean } = {},
) {
  // The account asking: its own learned version and calibration decide, whoever's pools it searches.
  const caller = scopeOfJob(data);
  const owners = await deps.poolOwners(caller, data.kind);
  only = await narrowBySpecies(deps.c, owners, data.kind, data.filters.species, only);
  const filter = {
    kind: data.kind,
    farmId: data.filters.farm_id ?? null,
    treeId: data.filters.tree_id ?? null,
    ...(only ? { individualIds: only } : {}),
  };
  const base = await deps.pools.gallery(owners, filter);
  const gallery = (await deps.learned?.gallery(caller, owners, filter, base)) ?? base;
  // The caller's own calibration for the pipeline that searched (fruit within a tree has its own).
  const scope = data.kind === 'fruit' && filter.treeId ? 'tree' : 'all';
  // The pool's species and size pick the kind's shipped and pooled thresholds; counted only when the owner's own fit does not serve.
  let facts: Promise<PoolFacts> | undefined;
  const pool = () => (facts ??= poolFacts(deps.c, owners, data.kind, data.filters.species, filter.farmId, only));
  const kindDefault = async () => deps.engine.calibrationFor(data.kind, data.kind === 'animal' ? await pool() : {});
  const pooled = async () => {
    const f = await pool();
    return servingPooled(deps.c, data.kind, deps.engine.model.version, { species: f.species ?? null, individuals: f.individuals ?? 0 });
  };
  const cal = await calibrationFor(
    deps.c.db,
    caller,
    data.kind,
    pipelineKey(deps.engine, gallery.learned ?? null, scope),
    kindDefault,
    gallery.learned ?? null,
    pooled,
    queries.length,
  );
  const out = await deps.engine.identify({
    kind: data.kind,
    channels: data.channels,
    queries,
    gallery,
    calibration: cal.params,
    guard: cal.guard,
  });
  const candidates = await present(deps.c, data.kind, out.candidates);
  return {
    verdict: out.verdict,
    match: out.verdict === 'match' ? (candidates[0] ?? null) : null,
    candidates,
    closest: opts.review === false ? [] : await closestForReview(deps.c, data.kind, out.ranked, queries[0], gallery, out.pairs),
    model: out.model,
    learned: out.learned,
    calibration: cal.info,
    // Kept with the stored query for re-fitting the calibration from labels; stripped before answering.
    [EVIDENCE]: out.ranked.slice(0, 10).map((x) => ({ individual_id: x.individualId, evidence: x.evidence })),
  };
}

/** Key of the ranked evidence inside a result; `publicResult` removes it. */
export const EVIDENCE = '_evidence';

/** The stored query row, and the result without the internal evidence. */
export async function storeQuery(
  c: Container,
  q: { id: string; owner: OwnerScope; kind: Kind; cids: string[] },
  full: Record<string, unknown>,
) {
  const { [EVIDENCE]: evidence, ...result } = full;
  await identifyQueriesRepo.insert(c.db, q.owner, {
    id: q.id,
    kind: q.kind,
    image_cids: q.cids,
    result,
    evidence: JSON.stringify(evidence ?? []),
    learned_version: learnedVersionOf(result),
  });
  return result;
}

/** The learned metric version an answer was searched with, for the stored row (null: none). */
function learnedVersionOf(result: Record<string, unknown>): number | null {
  const l = result.learned as { version?: string } | null | undefined;
  return l?.version ? Number(l.version) : null;
}

/**
 * Identify from one or several photos of one subject. The query and its answer are stored under
 * `query_id`, so a later `identify_verdict` label can refer to them; a retry stores nothing twice.
 */
export function identifyHandler(deps: IdentifyDeps): JobHandler<'identify'> {
  return async (data) => {
    const queries: Descriptor[] = [];
    for (const [i, cid] of data.images.entries()) {
      queries.push(await describeOrRefuse(deps.c, deps.engine, cid, `photo-${i + 1}`, data.kind));
    }
    const full = { query_id: data.query_id, ...(await identifyDescriptors(deps, data, queries)) };
    const result = await storeQuery(deps.c, { id: data.query_id, owner: scopeOfJob(data), kind: data.kind, cids: data.images }, full);
    await deps.shadow?.(data, result as { candidates?: { individual_id: string }[] });
    return result;
  };
}
