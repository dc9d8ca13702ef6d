/**
 * `npm run models -- register <dir> [--share 0.1] | promote <name@version> | rollback | report`
 *
 * The model lifecycle (model-lifecycle.ts) from the command line, on the service's configuration
 * (DATA_DIR or DATABASE_URL). Promote and roll back take effect when the service next starts; with
 * the embedded mode (PGlite, one process at a time) run this while the service is stopped.
 */
import { loadConfig } from '../../../shared/src/config/config.js';
import { createContainer } from '../../../shared/src/container.js';
import { createLogger } from '../../../shared/src/logger.js';
import { promoteModel, registerModel, rollbackModel, shadowReport } from './model-lifecycle.js';

const [cmd, arg] = process.argv.slice(2);
const share = process.argv.includes('--share') ? Number(process.argv[process.argv.indexOf('--share') + 1]) : 0.1;
const c = await createContainer(loadConfig(), { logger: createLogger('warn') });
try {
  if (cmd === 'register' && arg) console.log(JSON.stringify(await registerModel(c, arg, share)));
  else if (cmd === 'promote' && arg) console.log(JSON.stringify(await promoteModel(c, arg)));
  else if (cmd === 'rollback') console.log(JSON.stringify(await rollbackModel(c)));
  else if (cmd === 'report') console.log(JSON.stringify(await shadowReport(c), null, 2));
  else throw new Error('usage: npm run models -- register <dir> [--share 0.1] | promote <name@version> | rollback | report');
} finally {
  await c.close();
}
