import type { Container } from '../../../shared/src/container.js';
import { UnrecoverableJobError } from '../../../shared/src/domain/errors.js';
import { decideSpecies, type LabelledDetection } from '../../../shared/src/domain/animal-species.js';
import type { JobData, JobHandler } from '../../../shared/src/domain/jobs.js';
import { individualsRepo } from '../../../shared/src/repos/individuals.repo.js';
import type { AnimalDetector } from '../vision/animal-detector.js';
import { describeOrRefuse } from './describe.js';
import { scopeOfJob } from '../../../shared/src/access/owner-scope.js';
import { identifyDescriptors, storeQuery, type IdentifyDeps } from './identify.handler.js';
import { ownPool } from '../../../shared/src/access/pool-owners.js';

export interface AnimalSpeciesDeps extends IdentifyDeps {
  detector: () => Promise<AnimalDetector>;
}

/** The caller's own animals of the farm whose stored species is one of `spellings`. */
async function individualsOf(c: Container, data: JobData<'animal_species'>, spellings: string[]): Promise<Set<string>> {
  return new Set(await individualsRepo.animalsOfSpecies(c.db, scopeOfJob(data), data.farm_id ?? null, spellings));
}

async function detectIn(
  deps: AnimalSpeciesDeps,
  cid: string,
): Promise<{ detections: LabelledDetection[]; model: AnimalDetector['model'] }> {
  const bytes = await deps.c.blobs.get(cid);
  if (!bytes) throw new Error(`blob ${cid} missing from the store`);
  const detector = await deps.detector();
  try {
    return { detections: await detector.detect(bytes), model: detector.model };
  } catch (err) {
    if ((err as { unrecoverable?: boolean })?.unrecoverable)
      throw new UnrecoverableJobError(String(err), 422, 'image_undecodable', { field: 'files', filename: 'photo-1' });
    throw err;
  }
}

/**
 * Detect (only for a farm of several species: rules 1 and 2 need no detector), decide the species
 * with the shared rules, and for a scan identify within the decided species, or among all the
 * farm's species while the person still has to confirm. The identification is stored like any
 * identify query, so `identify_verdict` can label it.
 */
export function animalSpeciesHandler(deps: AnimalSpeciesDeps): JobHandler<'animal_species'> {
  return async (data) => {
    const cid = data.images[0]!;
    const detected = data.farm.length > 1 ? await detectIn(deps, cid) : null;
    const decision = decideSpecies({ farm: data.farm, groups: data.groups, catalogue: data.catalogue, detections: detected?.detections });
    const detection = { ...decision, detections: detected?.detections ?? [], detector: detected?.model ?? null };
    if (!data.identify) return { detection };
    // Only a confident decision narrows the pool: a weak one could shut the right animal out.
    const chosen = decision.species ? [decision.species] : data.farm.map((x) => x.id);
    const spellings = data.farm.filter((f) => chosen.includes(f.id)).flatMap((f) => f.spellings);
    const only = await individualsOf(deps.c, data, spellings);
    const query = await describeOrRefuse(deps.c, deps.engine, cid, 'photo-1', 'animal');
    const q = {
      owner_id: data.owner_id,
      kind: 'animal' as const,
      filters: data.farm_id ? { farm_id: data.farm_id } : {},
      channels: data.identify.channels,
    };
    // An empty set would mean "no narrowing" to the index: nobody of these species means no candidate at all.
    const found = only.size
      ? await identifyDescriptors({ ...deps, poolOwners: async (searcher) => ownPool(searcher) }, q, [query], only)
      : { verdict: 'no_match', match: null, candidates: [], model: deps.engine.model };
    const full = { query_id: data.identify.query_id, ...found };
    const result = await storeQuery(
      deps.c,
      { id: data.identify.query_id, owner: scopeOfJob(data), kind: 'animal', cids: data.images },
      full,
    );
    return { ...result, detection };
  };
}
