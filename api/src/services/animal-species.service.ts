import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { individualsRepo } from '../../../shared/src/repos/individuals.repo.js';
import { AppError } from '../../../shared/src/domain/errors.js';
import { decideSpecies, type FarmSpecies } from '../../../shared/src/domain/animal-species.js';
import { SpeciesCatalog } from '../discovery/species-catalog.js';
import type { Caller } from '../http/route.js';
import type { UploadedFile } from '../middleware/multipart.js';
import type { JobOutcome, JobsService } from './jobs.service.js';
import type { MediaService } from './media.service.js';
import { speciesKey } from './scan.service.js';

/** A species of the caller's farm, with the stored spellings that name it. */
export interface FarmEntry extends FarmSpecies {
  spellings: string[];
}

/**
 * The species side of animals: which species a farm holds (mapped onto the catalogue), and the
 * detect and scan flows that decide among them with the spec's three rules.
 */
/** The ports the species flows use. */
export interface AnimalSpeciesDeps {
  db: Queryable;
  individualsRepo: Pick<typeof individualsRepo, 'speciesOfFarm'>;
  /** The species catalogue's file (configuration). */
  speciesCatalogPath: string;
  media: Pick<MediaService, 'withUploads'>;
  jobs: Pick<JobsService, 'run'>;
}

export function createAnimalSpeciesService(deps: AnimalSpeciesDeps) {
  const catalog = new SpeciesCatalog(deps.speciesCatalogPath);

  async function catalogue() {
    const body = await catalog.body('en');
    const animals = body.species.filter((s) => s.kind === 'animal');
    return { animals, groups: (body.confusable_groups ?? []).map((g) => g.species) };
  }

  /**
   * The caller's species on one farm (farm_id is scoped to the caller's account), or on all of
   * the caller's farms. A stored name is mapped to its catalogue id by id, Vietnamese or English
   * name; a name the catalogue lacks stays itself, with no detector class.
   */
  async function farmSpecies(caller: Caller, farmId: string | undefined): Promise<FarmEntry[]> {
    const stored = await deps.individualsRepo.speciesOfFarm(deps.db, scopeOfCaller(caller), farmId ?? null);
    const { animals } = await catalogue();
    const byKey = new Map<string, FarmEntry>();
    for (const species of stored) {
      const known = animals.find((s) => [s.id, s.name_vi, s.name_en].some((n) => speciesKey(n) === speciesKey(species)));
      const id = known?.id ?? speciesKey(species);
      const entry = byKey.get(id) ?? { id, detector_class: known?.detector_class ?? null, spellings: [] };
      entry.spellings.push(species);
      byKey.set(id, entry);
    }
    return [...byKey.values()];
  }

  async function payload(caller: Caller, farmId: string | undefined, cid: string) {
    const [farm, cat] = await Promise.all([farmSpecies(caller, farmId), catalogue()]);
    return {
      owner_id: caller.account_id,
      images: [cid],
      ...(farmId ? { farm_id: farmId } : {}),
      farm,
      groups: cat.groups,
      catalogue: cat.animals.map((s) => s.id),
    };
  }

  return {
    farmSpecies,

    /** Rules 1 and 2 answer at once without a photo; rule 3 runs the detector in a worker. */
    async detect(caller: Caller, farmId: string, files: UploadedFile[]): Promise<JobOutcome> {
      const farm = await farmSpecies(caller, farmId);
      if (farm.length < 2) {
        const cat = await catalogue();
        const decision = decideSpecies({ farm, groups: cat.groups, catalogue: cat.animals.map((s) => s.id) });
        return { done: true, job_id: '', result: { detection: { ...decision, detections: [], detector: null } } };
      }
      if (!files.length) throw new AppError(422, 'animal_detect_photo_needed', { field: 'files' });
      return deps.media.withUploads(files, 'image', 'files', async ([m]) =>
        deps.jobs.run('animal_species', await payload(caller, farmId, m!.cid)),
      );
    },

    /** Detect the species, then identify within it (or within the narrowed list still to confirm). */
    scan(caller: Caller, farmId: string | undefined, files: UploadedFile[], channels?: ('body' | 'face' | 'bio')[]): Promise<JobOutcome> {
      return deps.media.withUploads(files, 'image', 'files', async ([m]) =>
        deps.jobs.run('animal_species', {
          ...(await payload(caller, farmId, m!.cid)),
          identify: { query_id: randomUUID(), ...(channels ? { channels } : {}) },
        }),
      );
    },
  };
}

export type AnimalSpeciesService = ReturnType<typeof createAnimalSpeciesService>;
