/**
 * The statements the anchor backends themselves run (shared/src/adapters/anchor): the `local`
 * backend's signed checkpoint log (`checkpoint_log`), appended under the log's own lock, and the
 * `cardano` backend's per-wallet lock with the UTxOs its anchors in flight hold. The `anchors`
 * rows the anchor job writes are anchor-store.ts's; the public log reads are anchor-public.repo.ts's.
 */
import type { SignedCheckpoint } from '../../evidence/checkpoint.js';
import type { Queryable } from '../../ports/database.port.js';

export const anchorBackendRepo = {
  /** Holds the checkpoint log's lock until `tx` ends: one appender at a time, in any process. */
  async lockCheckpointLog(tx: Queryable): Promise<void> {
    await tx.query('select pg_advisory_xact_lock(hashtext($1))', ['checkpoint-log']);
  },

  /** The newest checkpoint's seq and hash; undefined while the log is empty. */
  async lastCheckpoint(tx: Queryable): Promise<{ seq: number; hash: string } | undefined> {
    const r = await tx.query<{ seq: number; hash: string }>('select seq, hash from checkpoint_log order by seq desc limit 1');
    return r.rows[0];
  },

  /** Appends one checkpoint with its hash (seq and hash are unique: a second append of either fails). */
  async insertCheckpoint(tx: Queryable, cp: SignedCheckpoint, logId: string, hash: string): Promise<void> {
    await tx.query('insert into checkpoint_log (seq, log_id, checkpoint, hash) values ($1, $2, $3, $4)', [cp.seq, logId, cp, hash]);
  },

  /** The whole log, oldest first. */
  async allCheckpoints(db: Queryable): Promise<SignedCheckpoint[]> {
    const r = await db.query<{ checkpoint: SignedCheckpoint }>('select checkpoint from checkpoint_log order by seq');
    return r.rows.map((x) => x.checkpoint);
  },

  /** Holds the lock of the Cardano wallet at `address` until `tx` ends. */
  async lockWallet(tx: Queryable, address: string): Promise<void> {
    await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`cardano-wallet:${address}`]);
  },

  /**
   * UTxOs (`<tx_hash>#<index>`) held by Cardano anchors still in flight (pending or submitted):
   * the chain only drops them from the address once their transaction is in a block.
   */
  async inFlightInputs(tx: Queryable): Promise<Set<string>> {
    const r = await tx.query<{ inputs: string[] | string }>(
      `select inputs from anchors where backend = 'cardano' and status in ('pending', 'submitted') and inputs is not null`,
    );
    return new Set(r.rows.flatMap((row) => (typeof row.inputs === 'string' ? (JSON.parse(row.inputs) as string[]) : row.inputs)));
  },
};

export type AnchorBackendRepo = typeof anchorBackendRepo;
