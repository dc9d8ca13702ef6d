/**
 * `npm run train -- --owner <account uuid> --kind animal`           train, adopt only if it beats the current one
 * `npm run train -- --owner <account uuid> --kind animal --rollback` go back to the previous adopted version
 * `npm run train -- --owner <account uuid> --kind animal --list`     list the stored versions
 * `npm run train -- --owner <account uuid> --kind animal --enqueue`  hand it to the workers as a `train_metric` job
 * `npm run train -- --owner <account uuid> --kind animal --calibrate` refit the owner's calibration for the pipeline serving now
 * `--recipe backbone` (with any of the above): fine-tune the network on the owner's photos instead
 *   of learning a linear metric over it (animals; needs Debian's python3-torch python3-onnx python3-pil);
 *   `--epochs N --freeze N` override its settings (workers/src/learn/backbone.ts)
 *
 * Reads the same configuration as the service (DATA_DIR or DATABASE_URL, blobs for verdict
 * photos). With the embedded database, run it while the service is stopped (PGlite allows one
 * process at a time), or enqueue the `train_metric` job instead. Prints one JSON object.
 */
import { scopeOfJob } from '../../../shared/src/access/owner-scope.js';
import { loadConfig } from '../../../shared/src/config/config.js';
import { createContainer } from '../../../shared/src/container.js';
import { Kind } from '../../../shared/src/domain/jobs.js';
import { RecognitionEngine } from '../vision/engine.js';
import { listVersions, rollback } from './store.js';
import { createLearnedGalleries } from './gallery.js';
import { createPools } from '../recognition/pool.js';
import { calibrationScopes, fitOwnerCalibration } from '../recognition/owner-calibration.js';
import { RECIPES, trainOwner, type RecipeName } from './train.js';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const owner = arg('--owner');
const kind = Kind.parse(arg('--kind') ?? 'animal');
const recipe = (arg('--recipe') ?? 'linear') as RecipeName;
if (!(recipe in RECIPES)) throw new Error(`--recipe must be one of ${Object.keys(RECIPES).join(', ')}`);
const backbone = {
  ...(arg('--epochs') ? { epochs: Number(arg('--epochs')) } : {}),
  ...(arg('--freeze') ? { freeze: Number(arg('--freeze')) } : {}),
};
if (!owner || !/^[0-9a-f-]{36}$/i.test(owner))
  throw new Error('usage: npm run train -- --owner <account uuid> [--kind tree|fruit|animal] [--rollback | --list | --enqueue]');

// The operator names the owner on the command line; the CLI then does what a job for that owner would.
const scope = scopeOfJob({ owner_id: owner });

const c = await createContainer(loadConfig());
try {
  if (args.includes('--rollback')) {
    console.log(JSON.stringify({ owner, kind, ...(await rollback(c.db, scope, kind)) }));
  } else if (args.includes('--enqueue')) {
    const id = await c.queue.enqueue('train_metric', { owner_id: owner, kind, recipe }, { jobId: `train-${owner}-${kind}-${Date.now()}` });
    console.log(JSON.stringify({ owner, kind, job: id }));
  } else if (args.includes('--calibrate')) {
    const engine = await RecognitionEngine.create();
    const deps = { c, engine, pools: createPools(c, engine), learned: createLearnedGalleries(c, engine) };
    const fits = [];
    for (const scope of calibrationScopes(kind)) {
      const { pipeline, report } = await fitOwnerCalibration(deps, owner, kind, scope);
      fits.push({ scope, pipeline, ...report, params: report.params ? { matchThreshold: report.params.matchThreshold } : null });
    }
    console.log(JSON.stringify({ owner, kind, calibration: fits }));
  } else if (args.includes('--list')) {
    console.log(JSON.stringify({ owner, kind, versions: await listVersions(c.db, scope, kind) }));
  } else {
    const engine = await RecognitionEngine.create();
    console.log(JSON.stringify({ owner, kind, ...(await trainOwner(c, engine, scope, kind, null, { recipe, backbone })) }));
  }
} finally {
  await c.close();
}
