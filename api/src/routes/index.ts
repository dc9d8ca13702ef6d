import type { Container } from '../../../shared/src/container.js';
import type { Services } from '../services/index.js';
import type { RouteDef } from '../http/route.js';
import { accountRoutes } from './accounts.route.js';
import { adminRoutes } from './admin.route.js';
import { feedbackRoutes } from './feedback.route.js';
import { jobRoutes } from './jobs.route.js';
import { systemRoutes } from './system.route.js';
import { treeRoutes } from './trees.route.js';

/**
 * The live route table. Discovery (`/api`, `/api/health` features, `/openapi.json`) reads this
 * same list, so it is passed to the system routes once the others are known.
 */
export function buildRoutes(c: Container, s: Services): RouteDef[] {
  const routes: RouteDef[] = [...accountRoutes(s), ...jobRoutes(s), ...treeRoutes(s)];
  routes.push(...feedbackRoutes(s), ...adminRoutes(s));
  routes.push(...systemRoutes(c, s, () => routes));
  return routes;
}
