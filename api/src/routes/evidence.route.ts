import type { z } from 'zod';
import type { Services } from '../services/index.js';
import type { RouteDef } from '../http/route.js';
import { anchorRoutes } from './anchor.route.js';
import { provenanceRoutes } from './provenance.route.js';
import { timelineRoutes } from './timeline.route.js';
import { trustRoutes } from './trust.route.js';

const GENERIC = '/api/{entity_type}/';

/**
 * Animal routes also live under `/animal/...` (spec section 4): the animal timeline routes get a
 * hidden mirror with the entity type fixed, so `/animal/{id}/timeline` is `/api/animal/{id}/timeline`.
 */
function animalMirror(r: RouteDef): RouteDef {
  const params = (r.params as z.ZodObject).omit({ entity_type: true }).transform((p) => ({ ...p, entity_type: 'animal' as const }));
  return { ...r, path: r.path.replace(GENERIC, '/animal/'), params, hidden: true };
}

/**
 * Every evidence route: timelines, anchoring, provenance, blobs and the public trust helpers.
 * The generic `/api/{entity_type}/...` timeline paths end in fixed words (event, timeline, proof,
 * consistency, approve, anchor), so they cannot shadow another area's route of the same length.
 */
export function evidenceRoutes(s: Services): RouteDef[] {
  const entityRoutes = [...anchorRoutes(s), ...timelineRoutes(s)];
  const mirrors = entityRoutes.filter((r) => r.path.startsWith(GENERIC)).map(animalMirror);
  return [...trustRoutes(), ...provenanceRoutes(s), ...entityRoutes, ...mirrors];
}
