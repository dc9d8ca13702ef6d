import { createPrivateKey, randomBytes, type KeyObject } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { copyFile, link, mkdir, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
// The modules themselves, not the evidence barrel: it also carries the Cardano library.
import {
  GENESIS_CHECKPOINT_HASH,
  checkpointHash,
  generateCheckpointKey,
  signCheckpoint,
  verifyCheckpointLog,
  type SignedCheckpoint,
} from '../../evidence/checkpoint.js';
import { keyObjectToDidKey } from '../../evidence/did-key.js';
import type { AnchorBackend, AnchorRequest } from '../../ports/anchor.port.js';
import type { Database, Queryable } from '../../ports/database.port.js';
import { anchorBackendRepo } from '../../repos/evidence/anchor-backend.repo.js';

/** Options of {@link createLocalAnchor}. */
export interface LocalAnchorOptions {
  db: Database;
  /** PEM file of the Ed25519 key; created (mode 0600) on first use and reused ever after. */
  keyFile: string;
  /** Identifies this deployment's log inside every checkpoint. */
  logId: string;
}

/**
 * Loads the service key, creating it once, safely when an API and a worker (or several) start
 * together on one data folder. The key is written whole to a private temporary file first and
 * then hard-linked to its name, which fails if the name exists: so the name only ever shows a
 * complete key, exactly one creator wins, and a loser reads the winner's key. A file that is there
 * but not (yet) a whole key (a writer of an older version mid-write, a slow network disk) is read
 * again for up to `waitMs` before giving up with a sentence naming the file.
 */
export async function loadOrCreateKey(file: string, waitMs = 5000): Promise<KeyObject> {
  const existing = await readKey(file, waitMs);
  if (existing) return existing;
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true });
  const pem = generateCheckpointKey().privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const h = await open(tmp, 'wx', 0o600);
  try {
    await h.writeFile(pem);
    await h.sync();
  } finally {
    await h.close();
  }
  try {
    await link(tmp, file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Another creator won: its file is complete (linked only after it was written). File systems
    // without hard links get an exclusive copy instead; readers wait out its short write.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EXDEV') {
      await copyFile(tmp, file, fsConstants.COPYFILE_EXCL).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw e;
      });
    } else if (code !== 'EEXIST') throw err;
  } finally {
    await rm(tmp, { force: true });
  }
  const key = await readKey(file, waitMs);
  if (!key) throw new Error(`The anchoring key file ${file} vanished while it was being created; start again.`);
  return key;
}

/** The key in `file`; null when there is no file; retried while the file is not a whole key yet. */
async function readKey(file: string, waitMs: number): Promise<KeyObject | null> {
  const end = Date.now() + waitMs;
  for (;;) {
    let pem: string;
    try {
      pem = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      return createPrivateKey(pem);
    } catch (err) {
      if (Date.now() >= end) {
        throw new Error(
          `The anchoring key file ${file} is not a complete PEM private key (${(err as Error).message}); restore the deployment's key there, or remove the file to create a new one.`,
          { cause: err },
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Appends one signed checkpoint to the log inside `tx`, under the log's own lock. */
async function appendCheckpoint(tx: Queryable, key: KeyObject, logId: string, req: AnchorRequest): Promise<SignedCheckpoint> {
  await anchorBackendRepo.lockCheckpointLog(tx);
  const prev = await anchorBackendRepo.lastCheckpoint(tx);
  const cp = signCheckpoint(
    {
      log_id: logId,
      seq: prev ? prev.seq + 1 : 0,
      entity: req.entity,
      size: req.size,
      root_hex: req.root_hex,
      prev_checkpoint_hash: prev ? prev.hash : GENESIS_CHECKPOINT_HASH,
      created_at: new Date(),
    },
    key,
  );
  await anchorBackendRepo.insertCheckpoint(tx, cp, logId, checkpointHash(cp));
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
      const log = await anchorBackendRepo.allCheckpoints(opts.db);
      const verdict = verifyCheckpointLog(log, did);
      return {
        ok: verdict.ok,
        detail: {
          public_key: did,
          log_id: opts.logId,
          checkpoints: log.length,
          log_ok: verdict.ok,
          ...(verdict.reason ? { reason: verdict.reason } : {}),
        },
      };
    },
  };
}
