import type { Container } from '../../../shared/src/container.js';
import type { Services } from '../services/index.js';
import type { RouteDef } from '../http/route.js';
import { accountRoutes } from './accounts.route.js';
import { adminRoutes } from './admin.route.js';
import { feedbackRoutes } from './feedback.route.js';
import { jobRoutes } from './jobs.route.js';
import { systemRoutes } from './system.route.js';
import { treeRoutes } from './trees.route.js';
import { verdictRoutes } from './verdict.route.js';
import { evidenceRoutes } from './evidence.route.js';
import { webAppRoutes } from './web-app.route.js';
import { grantRoutes } from './grant.route.js';
import { resolveRoutes } from './resolve.route.js';
import { scanRoutes } from './scan.route.js';
import { treeManageRoutes } from './trees-manage.route.js';
import { fruitRoutes } from './fruit.route.js';
import { animalRoutes } from './animal-routes.js';
import { autoRoutes } from './auto.route.js';
import { farmRoutes } from './farm.route.js';
import { careRoutes } from './care.route.js';
import { residueRoutes } from './residue.route.js';
import { populationRoutes } from './population.route.js';
import { fruitPublicRoutes } from './fruit-public.route.js';
import { fruitBatchRoutes } from './fruit-batch.route.js';
import { opsRoutes } from './ops.route.js';
import { datasciRoutes } from './datasci.route.js';
import { modelRoutes } from './models.route.js';
import { calibrationPoolRoutes } from './calibration-pool.route.js';
import { surveyRoutes } from './survey.route.js';
import { learningRoutes } from './learning.route.js';
import { reviewQueueRoutes } from './review-queue.route.js';
import { fruitListRoutes } from './fruit-list.route.js';

/**
 * The live route table. Discovery (`/api`, `/api/health` features, `/openapi.json`) reads this
 * same list, so it is passed to the system routes once the others are known.
 */
export function buildRoutes(c: Container, s: Services): RouteDef[] {
  const routes: RouteDef[] = [
    ...accountRoutes(s),
    ...jobRoutes(s),
    ...autoRoutes(s),
    ...treeRoutes(s),
    ...fruitRoutes(s),
    ...animalRoutes(s),
    ...farmRoutes(s),
  ];
  routes.push(...feedbackRoutes(s), ...adminRoutes(s), ...verdictRoutes(s));
  routes.push(...resolveRoutes(s), ...scanRoutes(s), ...treeManageRoutes(s), ...grantRoutes(s), ...webAppRoutes());
  routes.push(...evidenceRoutes(s));
  routes.push(...careRoutes(s), ...residueRoutes(s));
  routes.push(...populationRoutes(s));
  routes.push(...fruitPublicRoutes(s), ...fruitBatchRoutes(s));
  routes.push(...opsRoutes(c, s));
  routes.push(...datasciRoutes(s), ...modelRoutes(c), ...calibrationPoolRoutes(s));
  routes.push(...surveyRoutes(s));
  routes.push(...learningRoutes(c));
  routes.push(...reviewQueueRoutes(s), ...fruitListRoutes(s));
  routes.push(...systemRoutes(c, s, () => routes));
  return routes;
}
