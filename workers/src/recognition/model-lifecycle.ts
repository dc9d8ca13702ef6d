/**
 * Models in (issue 17): register a candidate global-embedding model (manifest sha256 and licence
 * checked), score a share of live identify requests with it in shadow, promote it (re-embed every
 * photo, then it serves from the next start) and roll back (the previous model serves again; its
 * descriptors were never deleted, so its answers come back exactly).
 */
import { createHash, randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Container } from '../../../shared/src/container.js';
import type { JobData, Kind } from '../../../shared/src/domain/jobs.js';
import {
  insertRegistration,
  insertShadowScore,
  isRegistered,
  lastPromotedRetired,
  listRegistrations,
  promoteRegistration,
  registrationByRef,
  rollbackRegistration,
  servingDir as servingDirOf,
  servingRegistration,
  type Registration,
} from '../../../shared/src/repos/model-registrations.repo.js';
import { Embedder } from '../vision/embed.js';
import { RecognitionEngine, type Descriptor } from '../vision/engine.js';
import { loadRegistry, readManifestFile, readModelBytes, type ModelEntry } from '../vision/registry.js';
import { createPools, type Pools } from './pool.js';
import { reembedMissing } from './reembed.js';
import { scopeOfJob, type OwnerScope } from '../../../shared/src/access/owner-scope.js';
import type { SearchPool } from '../../../shared/src/access/pool-owners.js';

// The registrations table is read by the API too (GET /api/admin/models), so it lives in shared/.
export { listRegistrations, shadowReport, type Registration } from '../../../shared/src/repos/model-registrations.repo.js';

/** A refused model: the reason names the check that failed. */
export class ModelRefusedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** Reads the folder's manifest and checks its global-embedding entry: licence present, bytes match sha256. */
export function checkCandidate(dir: string): ModelEntry {
  const abs = resolve(dir);
  if (!existsSync(join(abs, 'manifest.json'))) throw new ModelRefusedError(`${abs} has no manifest.json`);
  let entry: ModelEntry | undefined;
  try {
    entry = readManifestFile(abs).models.find((m) => m.role === 'global-embedding');
  } catch (err) {
    throw new ModelRefusedError((err as Error).message);
  }
  if (!entry) throw new ModelRefusedError('the manifest has no global-embedding model');
  if (!entry.licence.trim()) throw new ModelRefusedError('the manifest names no licence');
  if (entry.licence_file && !existsSync(join(abs, entry.licence_file)))
    throw new ModelRefusedError(`licence file ${entry.licence_file} is missing`);
  try {
    readModelBytes({ ...entry, dir: abs, origin: 'operator' });
  } catch (err) {
    throw new ModelRefusedError((err as Error).message);
  }
  return entry;
}

const engines = new Map<string, Promise<RecognitionEngine>>();
/** The engine of a registered model (its embedding plus the registry's other models), once per folder. */
export function engineOf(reg: Pick<Registration, 'dir'>): Promise<RecognitionEngine> {
  let e = engines.get(reg.dir);
  if (!e) {
    const entry = readManifestFile(reg.dir).models.find((m) => m.role === 'global-embedding')!;
    e = Embedder.load({ ...entry, dir: reg.dir, origin: 'operator' }).then((embedder) =>
      RecognitionEngine.create({ embedder, calibration: {}, registry: loadRegistry({ operatorDir: reg.dir }) }),
    );
    engines.set(reg.dir, e);
  }
  return e;
}

/** Re-embeds every photo that lacks a descriptor from `engine` (the reindex job's own code). */
async function reembed(c: Container, engine: RecognitionEngine) {
  return reembedMissing({ c, engine, pools: createPools(c, engine) });
}

async function byRef(c: Container, ref: string): Promise<Registration> {
  const [name, version] = ref.split('@');
  const reg = await registrationByRef(c.db, name, version);
  if (!reg) throw new ModelRefusedError(`${ref} is not registered`);
  return reg;
}

/**
 * Registers the model in `dir`: checked (sha256, licence), copied under DATA_DIR/models, every
 * photo embedded with it, then scoring `share` of identify requests in shadow.
 * @throws ModelRefusedError (wrong sha256, no licence, malformed manifest, already registered)
 */
export async function registerModel(c: Container, dir: string, share = 0.1): Promise<Registration & { reembedded: number }> {
  const entry = checkCandidate(dir);
  if (await isRegistered(c.db, entry.name, entry.version))
    throw new ModelRefusedError(`${entry.name}@${entry.version} is already registered`);
  const dest = join(c.config.dataDir, 'models', `${entry.name}@${entry.version}`);
  mkdirSync(dest, { recursive: true });
  for (const f of ['manifest.json', entry.file, ...(entry.licence_file ? [entry.licence_file] : [])])
    copyFileSync(join(resolve(dir), f), join(dest, f));
  const reg: Registration = {
    id: randomUUID(),
    name: entry.name,
    version: entry.version,
    dir: dest,
    status: 'shadow',
    shadow_share: share,
    sha256: entry.sha256,
    licence: entry.licence,
  };
  const done = await reembed(c, await engineOf(reg));
  await insertRegistration(c.db, reg, JSON.stringify(entry));
  return { ...reg, reembedded: Number(done.reembedded ?? 0) };
}

/** Promote: re-embed what is still missing, then this model serves (from the next start); the one serving before retires. */
export async function promoteModel(c: Container, ref: string) {
  const reg = await byRef(c, ref);
  const done = await reembed(c, await engineOf(reg));
  await promoteRegistration(c.db, reg.id);
  return { serving: `${reg.name}@${reg.version}`, reembedded: done.reembedded };
}

/** Roll back: the serving model goes back to shadow; the one promoted before it (or the bundled model) serves again. */
export async function rollbackModel(c: Container) {
  const cur = await servingRegistration(c.db);
  if (!cur) throw new ModelRefusedError('no registered model is serving; the bundled model already is');
  const prev = await lastPromotedRetired(c.db);
  await rollbackRegistration(c.db, cur.id, prev ? prev.id : null);
  return { rolled_back: `${cur.name}@${cur.version}`, serving: prev ? `${prev.name}@${prev.version}` : 'bundled' };
}

/** The folder of the promoted registration's model, or null while the bundled one serves. */
export async function servingDir(c: Container): Promise<string | null> {
  return servingDirOf(c.db);
}

/** The engine that serves: the promoted registration's, or null for the bundled one. */
export async function servingEngine(c: Container): Promise<RecognitionEngine | null> {
  const dir = await servingDirOf(c.db);
  return dir !== null ? engineOf({ dir }) : null;
}

/** Whether `queryId` falls in the share of requests a shadow model scores (deterministic per query). */
export function inShadowShare(queryId: string, regId: string, share: number): boolean {
  const h = createHash('sha256').update(`${regId}:${queryId}`).digest().readUInt32BE(0) / 2 ** 32;
  return h < share;
}

type ShadowQuery = Pick<JobData<'identify'>, 'query_id' | 'owner_id' | 'kind' | 'filters' | 'channels' | 'images'>;

/**
 * Scores one identify request with every shadow model whose share it falls in, after the served
 * answer is stored; the answer is never touched. Failures are logged, never thrown.
 */
export function createShadow(c: Container, poolOwners: (searcher: OwnerScope, kind: Kind) => Promise<SearchPool>) {
  const pools = new Map<string, Pools>();
  return async (data: ShadowQuery, served: { candidates?: { individual_id: string }[] }) => {
    const regs = (await listRegistrations(c)).filter((r) => r.status === 'shadow' && inShadowShare(data.query_id, r.id, r.shadow_share));
    for (const reg of regs) {
      try {
        const engine = await engineOf(reg);
        const p = pools.get(reg.id) ?? createPools(c, engine);
        pools.set(reg.id, p);
        const queries: Descriptor[] = [];
        for (const cid of data.images)
          queries.push(await engine.describe((await c.blobs.get(cid))!, { kind: data.kind, enforceQuality: false }));
        const gallery = await p.gallery(await poolOwners(scopeOfJob(data), data.kind), {
          kind: data.kind,
          farmId: data.filters.farm_id ?? null,
          treeId: data.filters.tree_id ?? null,
        });
        const out = await engine.identify({ kind: data.kind, channels: data.channels, queries, gallery });
        const top = out.ranked[0];
        const servedTop = served.candidates?.[0]?.individual_id ?? null;
        const shownTop = out.candidates[0]?.individualId ?? null;
        await insertShadowScore(c.db, {
          query_id: data.query_id,
          registration_id: reg.id,
          owner_id: data.owner_id,
          engine: JSON.stringify(out.model),
          verdict: out.verdict,
          top1: shownTop,
          probability: top?.probability ?? null,
          served_top1: servedTop,
          agrees: shownTop === servedTop,
          candidates: JSON.stringify(out.candidates.map((x) => ({ individual_id: x.individualId, probability: x.probability }))),
        });
      } catch (err) {
        c.logger.warn({ err, model: `${reg.name}@${reg.version}` }, 'shadow scoring failed');
      }
    }
  };
}
