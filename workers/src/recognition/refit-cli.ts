/**
 * `npm run calibrate -- [--kind tree|fruit|animal] [--apply]`: re-fit the calibration from the
 * stored identify_verdict labels and print how separation changed. Reads the same configuration
 * as the service (DATA_DIR or DATABASE_URL); run it while the embedded service is stopped, since
 * PGlite allows one process at a time.
 */
import { loadConfig } from '../../../shared/src/config/config.js';
import { createPgliteDatabase } from '../../../shared/src/adapters/db/pglite.adapter.js';
import { createPostgresDatabase } from '../../../shared/src/adapters/db/postgres.adapter.js';
import { migrate } from '../../../shared/src/adapters/db/migrate.js';
import { DEFAULT_CALIBRATION } from '../vision/calibrate.js';
import { loadCalibrations, refitFromLabels } from './calibration.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';

const args = process.argv.slice(2);
const kind = (args[args.indexOf('--kind') + 1] ?? 'tree') as Kind;
if (!['tree', 'fruit', 'animal'].includes(kind)) throw new Error(`--kind must be tree, fruit or animal, not ${kind}`);
const config = loadConfig();
const db = config.DATABASE_URL ? await createPostgresDatabase(config.DATABASE_URL) : await createPgliteDatabase(config.dbDir);
try {
  await migrate(db);
  const current = (await loadCalibrations(db))[kind] ?? DEFAULT_CALIBRATION;
  const report = await refitFromLabels(db, kind, current, args.includes('--apply'));
  console.log(JSON.stringify({ kind, ...report }));
} finally {
  await db.close();
}
