import { createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  GENESIS_CHECKPOINT_HASH,
  checkpointHash,
  generateCheckpointKey,
  keyObjectToDidKey,
  signCheckpoint,
  verifyCheckpointLog,
  type SignedCheckpoint,
} from '../../evidence/index.js';
import type { AnchorBackend, AnchorRequest } from '../../ports/anchor.port.js';
import type { Database, Queryable } from '../../ports/database.port.js';

/** Options of {@link createLocalAnchor}. */
export interface LocalAnchorOptions {
  db: Database;
  /** PEM file of the Ed25519 key; created (mode 0600) on first use and reused ever after. */
  keyFile: string;
  /** Identifies this deployment's log inside every checkpoint. */
  logId: string;
}

/**
 * Loads the service key, creating it once. `wx` makes creation exclusive, so when an API and a
 * worker start together on one data folder exactly one key is written and both use it.
 */
export async function loadOrCreateKey(file: string): Promise<KeyObject> {
  try {
    return createPrivateKey(await readFile(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(path.dirname(file), { recursive: true });
  const pem = generateCheckpointKey().privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  try {
    await writeFile(file, pem, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return createPrivateKey(await readFile(file, 'utf8'));
}

/** Appends one signed checkpoint to the log inside `tx`, under the log's own lock. */
async function appendCheckpoint(tx: Queryable, key: KeyObject, logId: string, req: AnchorRequest): Promise<SignedCheckpoint> {
  await tx.query('select pg_advisory_xact_lock(hashtext($1))', ['checkpoint-log']);
  const last = await tx.query<{ seq: number; hash: string }>('select seq, hash from checkpoint_log order by seq desc limit 1');
  const prev = last.rows[0];
  const cp = signCheckpoint({
    log_id: logId, seq: prev ? prev.seq + 1 : 0, entity: req.entity, size: req.size, root_hex: req.root_hex,
    prev_checkpoint_hash: prev ? prev.hash : GENESIS_CHECKPOINT_HASH, created_at: new Date(),
  }, key);
  await tx.query('insert into checkpoint_log (seq, log_id, checkpoint, hash) values ($1, $2, $3, $4)', [cp.seq, logId, cp, checkpointHash(cp)]);
  return cp;
}

/** The `local` anchor backend: a signed, append-only checkpoint log in the database. */
export async function createLocalAnchor(opts: LocalAnchorOptions): Promise<AnchorBackend> {
  const key = await loadOrCreateKey(opts.keyFile);
  const did = keyObjectToDidKey(key);
  return {
    kind: 'local',
    publicKey: did,
    async anchor(tx, req) {
      const checkpoint = await appendCheckpoint(tx, key, opts.logId, req);
      // A checkpoint is final once its row commits: there is nothing further to wait for.
      return { status: 'confirmed', checkpoint };
    },
    async progress() {
      return { status: 'confirmed', confirmations: 1 };
    },
    async health() {
      const r = await opts.db.query<{ checkpoint: SignedCheckpoint }>('select checkpoint from checkpoint_log order by seq');
      const log = r.rows.map((x) => x.checkpoint);
      const verdict = verifyCheckpointLog(log, did);
      return {
        ok: verdict.ok,
        detail: { public_key: did, log_id: opts.logId, checkpoints: log.length, log_ok: verdict.ok, ...(verdict.reason ? { reason: verdict.reason } : {}) },
      };
    },
  };
}
