import type { Container } from '../../../shared/src/container.js';
import { individualsRepo } from '../../../shared/src/repos/individuals.repo.js';
import { animalDriftRepo } from '../../../shared/src/repos/animal-drift.repo.js';
import { createAnimalDriftService } from './animal-drift.service.js';
import { createAnimalSpeciesService } from './animal-species.service.js';
import { createAnimalsService } from './animals.service.js';
import type { JobsService } from './jobs.service.js';
import type { MediaService } from './media.service.js';
import type { TreesService } from './trees.service.js';
import { createViewsService } from './views.service.js';
import { viewsRepo } from '../../../shared/src/repos/views.repo.js';
import { animalsRepo } from '../../../shared/src/repos/animals.repo.js';
import { activityEventsRepo } from '../../../shared/src/repos/activity-events.repo.js';
import { appendChainEvent } from '../../../shared/src/repos/evidence/chain-store.js';

/** The animal services, wired together (kept out of services/index.ts so that file stays a list). */
export function createAnimalServices(c: Container, deps: { trees: TreesService; media: MediaService; jobs: JobsService }) {
  const animalSpecies = createAnimalSpeciesService({
    db: c.db,
    individualsRepo,
    speciesCatalogPath: c.config.speciesCatalogPath,
    media: deps.media,
    jobs: deps.jobs,
  });
  const views = createViewsService({ db: c.db, views: viewsRepo, trees: deps.trees });
  return {
    animalSpecies,
    animals: createAnimalsService({
      ...deps,
      db: c.db,
      animals: animalsRepo,
      views,
      species: animalSpecies,
      appendChainEvent,
      activity: activityEventsRepo,
    }),
    animalDrift: createAnimalDriftService({ db: c.db, drift: animalDriftRepo }),
  };
}
