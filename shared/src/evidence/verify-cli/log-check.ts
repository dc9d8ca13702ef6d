/**
 * Offline checks of what the service publishes without an account (FORMAT.md, "Public evidence"):
 * a stretch of the signed checkpoint log (`GET /api/anchor/checkpoints`), and a consistency proof
 * between two published roots of one entity (`GET /api/anchor/consistency/...`).
 *
 * A log stretch is continuous when its checkpoints have consecutive seqs and each names the hash
 * of the one before (the first of the log names 64 zeros). Two checkpoints a reader holds (say,
 * from two evidence bundles fetched months apart) are connected when both appear, byte for byte,
 * in one continuous stretch signed by the trusted key: the service cannot have dropped or
 * rewritten a checkpoint between them without breaking a link.
 */
import { GENESIS_CHECKPOINT_HASH, checkpointHash, verifyCheckpoint, type SignedCheckpoint } from '../checkpoint.js';
import { entityMatches } from '../entity-commitment.js';
import { verifyConsistency } from '../merkle-consistency.js';
import type { CheckResult } from './verify-export.js';

const pass = (check: string, detail: string): CheckResult => ({ check, ok: true, detail });
const fail = (check: string, detail: string): CheckResult => ({ check, ok: false, detail });

/** Accepts the route's answer (`{checkpoints: [...]}`) or a bare array. */
export function checkpointsOf(doc: unknown): SignedCheckpoint[] {
  const list = Array.isArray(doc) ? doc : (doc as { checkpoints?: unknown })?.checkpoints;
  if (!Array.isArray(list)) throw new Error('not a checkpoint list: expected an array or {checkpoints: [...]}');
  return list as SignedCheckpoint[];
}

/** `log.signatures`, `log.continuity` and one `log.includes <seq>` line per checkpoint given. */
export function verifyLog(
  log: readonly SignedCheckpoint[],
  trustKey: string | undefined,
  includes: readonly SignedCheckpoint[],
): CheckResult[] {
  const out: CheckResult[] = [];
  if (log.length === 0) return [fail('log.continuity', 'the log stretch is empty')];
  if (!trustKey) out.push(fail('log.signatures', 'no --trust-key given: a log signed by a key the reader does not pin proves nothing'));
  else {
    const bad = log.findIndex((cp) => !verifyCheckpoint(cp, trustKey).ok);
    out.push(
      bad === -1
        ? pass('log.signatures', `all ${log.length} checkpoints are signed by ${trustKey}`)
        : fail('log.signatures', `checkpoint seq ${String(log[bad]?.seq)}: ${verifyCheckpoint(log[bad]!, trustKey).reason ?? 'invalid'}`),
    );
  }
  out.push(continuity(log));
  const hashes = new Set(log.map((cp) => safeHash(cp)));
  for (const cp of includes) {
    const h = safeHash(cp);
    out.push(
      h !== null && hashes.has(h)
        ? pass(`log.includes ${cp.seq}`, `checkpoint ${cp.seq} (${cp.entity}, size ${cp.size}) is in the stretch`)
        : fail(`log.includes ${String(cp?.seq)}`, `checkpoint ${String(cp?.seq)} is not in this stretch of the log, or differs from it`),
    );
  }
  return out;
}

function continuity(log: readonly SignedCheckpoint[]): CheckResult {
  const first = log[0]!;
  if (first.seq === 0 && first.prev_checkpoint_hash !== GENESIS_CHECKPOINT_HASH)
    return fail('log.continuity', 'checkpoint 0 does not start the log');
  for (let i = 1; i < log.length; i++) {
    const prev = log[i - 1]!;
    const cp = log[i]!;
    if (cp.seq !== prev.seq + 1) return fail('log.continuity', `seq ${cp.seq} follows seq ${prev.seq}: a checkpoint is missing`);
    if (cp.log_id !== prev.log_id) return fail('log.continuity', `checkpoint ${cp.seq} is from another log`);
    if (cp.prev_checkpoint_hash !== safeHash(prev))
      return fail('log.continuity', `checkpoint ${cp.seq} does not link to checkpoint ${prev.seq}`);
  }
  return pass('log.continuity', `checkpoints ${first.seq}..${log.at(-1)!.seq} of log ${first.log_id} link without a gap`);
}

/** The answer of the public consistency route. */
export interface ConsistencyDoc {
  readonly entity: string;
  /** Open the log's commitments to `entity` at each size (entity-commitment.ts); absent for logs that named the id. */
  readonly entity_salts?: { readonly first?: string; readonly second?: string };
  readonly first: number;
  readonly second: number;
  readonly first_root: string;
  readonly second_root: string;
  readonly proof: readonly string[];
}

/**
 * `consistency.proof`: the first root's chain is a prefix of the second's (RFC 9162 §2.1.4.2);
 * with a log, `consistency.anchored`: both roots are the ones the (trusted) log signed for this entity.
 */
export function verifyConsistencyDoc(doc: ConsistencyDoc, log?: readonly SignedCheckpoint[], trustKey?: string): CheckResult[] {
  let ok: boolean;
  try {
    ok = verifyConsistency({ m: doc.first, n: doc.second, rootM: doc.first_root, rootN: doc.second_root, proof: doc.proof });
  } catch (err) {
    return [fail('consistency.proof', (err as Error).message)];
  }
  const out = [
    ok
      ? pass('consistency.proof', `${doc.entity}: the first ${doc.first} events are a prefix of the first ${doc.second}`)
      : fail(
          'consistency.proof',
          `the proof does not lead from root ${doc.first_root} (size ${doc.first}) to ${doc.second_root} (size ${doc.second})`,
        ),
  ];
  if (!log) return out;
  const signed = (size: number, root: string, salt?: string) =>
    log.some(
      (cp) =>
        entityMatches(cp.entity, doc.entity, salt) &&
        cp.size === size &&
        cp.root_hex === root &&
        trustKey !== undefined &&
        verifyCheckpoint(cp, trustKey).ok,
    );
  const missing = (
    [
      [doc.first, doc.first_root, doc.entity_salts?.first],
      [doc.second, doc.second_root, doc.entity_salts?.second],
    ] as const
  ).filter(([n, r, salt]) => !signed(n, r, salt));
  out.push(
    missing.length === 0
      ? pass('consistency.anchored', `both roots are signed checkpoints of ${doc.entity} in the log`)
      : fail(
          'consistency.anchored',
          `${missing.map(([n]) => `size ${n}`).join(' and ')} has no checkpoint of ${doc.entity} signed by ${trustKey ?? 'a pinned key (pass --trust-key)'}`,
        ),
  );
  return out;
}

function safeHash(cp: SignedCheckpoint): string | null {
  try {
    return checkpointHash(cp);
  } catch {
    return null;
  }
}
