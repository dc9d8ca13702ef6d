/**
 * Statements behind what anyone may read about anchoring: the signed checkpoint log
 * (`checkpoint_log`), the anchored roots of an entity (`anchors`), the best anchor to describe,
 * and whether an individual is published. What may be shown to whom is decided in
 * api/src/services/anchor-public.service.ts.
 */
import type { SignedCheckpoint } from '../evidence/checkpoint.js';
import type { Queryable } from '../ports/database.port.js';

/** The anchor of an entity worth describing, with the checkpoint a local anchor was signed in. */
export interface DescribedAnchorRow {
  backend: 'local' | 'cardano';
  status: string;
  size: number;
  root_hex: string;
  tx_hash: string | null;
  explorer_url: string | null;
  confirmations: number;
  checkpoint_seq: number | null;
  checkpoint: SignedCheckpoint | null;
}

export const anchorPublicRepo = {
  /** The entity's best anchor: any not failed before a failed one, then the largest size, then the newest; pending ones never. */
  async latestAnchor(q: Queryable, type: string, id: string): Promise<DescribedAnchorRow | null> {
    const r = await q.query<DescribedAnchorRow>(
      `select a.backend, a.status, a.size, a.root_hex, a.tx_hash, a.explorer_url, a.confirmations, a.checkpoint_seq, l.checkpoint
         from anchors a left join checkpoint_log l on l.seq = a.checkpoint_seq and a.backend = 'local'
        where a.entity_type = $1 and a.entity_id = $2 and a.status <> 'pending'
        order by (a.status = 'failed'), a.size desc, a.created_at desc limit 1`,
      [type, id],
    );
    const a = r.rows[0];
    return a ? { ...a, size: Number(a.size), confirmations: Number(a.confirmations) } : null;
  },

  /** Checkpoints with seq above `after`, oldest first, at most `limit`. */
  async checkpointsAfter(q: Queryable, after: number, limit: number): Promise<SignedCheckpoint[]> {
    const r = await q.query<{ checkpoint: SignedCheckpoint }>(
      'select checkpoint from checkpoint_log where seq > $1 order by seq limit $2',
      [after, limit],
    );
    return r.rows.map((x) => x.checkpoint);
  },

  /** How many checkpoints the log holds. */
  async checkpointCount(q: Queryable): Promise<number> {
    return (await q.query<{ n: number }>('select count(*)::int as n from checkpoint_log')).rows[0]!.n;
  },

  /** Whether the individual of that kind is published (public and not deleted). */
  async isPublished(q: Queryable, id: string, kind: string): Promise<boolean> {
    const r = await q.query('select 1 from individuals where id = $1 and kind = $2 and visibility = $3 and deleted_at is null', [
      id,
      kind,
      'public',
    ]);
    return r.rows.length > 0;
  },

  /** The roots the entity has anchored (submitted or confirmed) at any of `sizes`. */
  async anchoredRoots(q: Queryable, type: string, id: string, sizes: readonly number[]): Promise<{ size: number; root_hex: string }[]> {
    const r = await q.query<{ size: number; root_hex: string }>(
      `select size, root_hex from anchors where entity_type = $1 and entity_id = $2 and size = any($3::int[]) and status in ('confirmed', 'submitted')`,
      [type, id, [...sizes]],
    );
    return r.rows.map((a) => ({ size: Number(a.size), root_hex: a.root_hex }));
  },
};

export type AnchorPublicRepo = typeof anchorPublicRepo;
