import type { Services } from '../services/index.js';
import { withAnimalMirror, type RouteDef } from '../http/route.js';
import { animalReviewRoutes } from './animal-review.route.js';
import { animalMergeRoutes } from './animal-merge.route.js';
import { animalRecognitionRoutes } from './animal.route.js';
import { animalFixedRoutes, animalItemRoutes } from './animal-manage.route.js';
import { animalPageRoutes } from './animal-pages.route.js';

/**
 * Every owner animal route, plus its `/animal/...` mirror (spec 4 and 9: same behaviour, hidden
 * from docs). Fixed paths (`/api/animal/list`, `/demo`...) come before `/api/animal/{animal_did}`,
 * which would otherwise match them.
 */
export function animalRoutes(s: Services): RouteDef[] {
  return withAnimalMirror([
    ...animalRecognitionRoutes(s),
    ...animalFixedRoutes(s),
    ...animalReviewRoutes(s),
    ...animalMergeRoutes(s),
    ...animalPageRoutes(),
    ...animalItemRoutes(s),
  ]);
}
