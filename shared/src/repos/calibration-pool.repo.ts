/**
 * Every statement of the pooled calibration (migration 190): the samples every owner's labelled
 * answers become, the versions fitted on them, and the owner's choice to contribute.
 *
 * An owner's own choice and the count of its own samples (`contributes`, `setContributes`,
 * `samplesOfOwner`) take the owner's `OwnerScope` (shared/src/access/owner-scope.ts). The rest is
 * the pooled fit's, which reads and writes every contributing owner's samples by design
 * (`labelledSince`, `poolOf`, `upsertSample`), or the operator's versions.
 */
import type { OwnerScope } from '../access/owner-scope.js';
import type { Kind } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';

export type Band = 'small' | 'large';
export type PooledStatus = 'shadow' | 'serving' | 'retired' | 'rolled_back' | 'refused';

/** A pooled calibration's cell: what its samples share. */
export interface PoolCell {
  kind: Kind;
  engine_version: string;
  species: string;
  band: Band;
}

/** A labelled answer as the pool reads it (the owner's own row; only its scores leave it). */
export interface LabelledAnswer {
  owner_id: string;
  query_id: string;
  kind: Kind;
  verdict: 'correct' | 'wrong' | 'other' | 'unknown_ok';
  correct_id: string | null;
  evidence: { individual_id: string; evidence: Record<string, number> }[] | null;
  views: number;
  labelled_at: Date | string;
}

export interface SampleRow extends PoolCell {
  owner_id: string;
  source: string;
  ref: string;
  views: number;
  outcome: 'right' | 'wrong' | 'stranger';
  evidence: Record<string, number>;
  labelled_at: Date | string;
}

export interface PooledVersion extends PoolCell {
  id: number;
  params: Record<string, unknown> | null;
  report: Record<string, unknown>;
  shadow: Record<string, unknown> | null;
  status: PooledStatus;
  created_at: string;
  promoted_at: string | null;
  retired_at: string | null;
}

const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());
const version = (r: PooledVersion & { id: number | string }): PooledVersion => ({
  ...r,
  id: Number(r.id),
  created_at: iso(r.created_at)!,
  promoted_at: iso(r.promoted_at),
  retired_at: iso(r.retired_at),
});

export const calibrationPoolRepo = {
  /**
   * Labelled answers of the base pipeline of `engineVersion` whose sample is missing or older than
   * the label, from owners who contribute. An answer searched with an owner's learned model is left
   * out: its scores mean something else in every other account.
   */
  async labelledSince(db: Queryable, engineVersion: string, limit = 5000): Promise<LabelledAnswer[]> {
    const r = await db.query<LabelledAnswer>(
      `select v.owner_id, q.id as query_id, q.kind, v.verdict, v.correct_id, q.evidence,
              coalesce(array_length(q.image_cids, 1), 1) as views, v.created_at as labelled_at
         from identify_verdicts v
         join identify_queries q on q.id = v.query_id and q.owner_id = v.owner_id
         join accounts a on a.id = v.owner_id and a.calibration_contribute
        where q.learned_version is null and q.result->'model'->>'version' = $1
          and not exists (select 1 from calibration_samples s
                           where s.source = 'verdict' and s.ref = q.id::text and s.labelled_at >= v.created_at)
        order by v.created_at limit $2`,
      [engineVersion, limit],
    );
    return r.rows.map((x) => ({ ...x, views: Number(x.views) }));
  },

  /** The one species of an owner's pool of a kind ('*': several or none) and how many individuals it holds. */
  async poolOf(db: Queryable, ownerId: string, kind: Kind): Promise<{ species: string; individuals: number }> {
    const r = await db.query<{ species: string | null; n: string | number }>(
      `select lower(species) as species, count(*) as n from individuals where owner_id = $1 and kind = $2 and deleted_at is null group by 1`,
      [ownerId, kind],
    );
    const individuals = r.rows.reduce((a, x) => a + Number(x.n), 0);
    const species = kind === 'animal' && r.rows.length === 1 && r.rows[0]!.species ? r.rows[0]!.species : '*';
    return { species, individuals };
  },

  async upsertSample(db: Queryable, s: SampleRow): Promise<void> {
    await db.query(
      `insert into calibration_samples (owner_id, source, ref, kind, engine_version, species, band, views, outcome, evidence, labelled_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       on conflict (source, ref) do update set outcome = excluded.outcome, evidence = excluded.evidence, views = excluded.views,
         species = excluded.species, band = excluded.band, engine_version = excluded.engine_version, labelled_at = excluded.labelled_at`,
      [
        s.owner_id,
        s.source,
        s.ref,
        s.kind,
        s.engine_version,
        s.species,
        s.band,
        s.views,
        s.outcome,
        JSON.stringify(s.evidence),
        s.labelled_at,
      ],
    );
  },

  /** The cells with samples for an engine version: each species, and `*` for every species of the kind. */
  async cells(db: Queryable, engineVersion: string): Promise<PoolCell[]> {
    const r = await db.query<PoolCell>(
      `select distinct kind, engine_version, species, band from calibration_samples where engine_version = $1
       union select distinct kind, engine_version, '*' as species, band from calibration_samples where engine_version = $1`,
      [engineVersion],
    );
    return r.rows;
  },

  /** A cell's samples from owners who still contribute, oldest first (`*` takes every species). */
  async samplesOf(db: Queryable, cell: PoolCell): Promise<SampleRow[]> {
    const r = await db.query<SampleRow & { id: string | number }>(
      `select s.* from calibration_samples s join accounts a on a.id = s.owner_id and a.calibration_contribute
        where s.kind = $1 and s.engine_version = $2 and s.band = $3 and ($4 = '*' or s.species = $4)
        order by s.labelled_at, s.id`,
      [cell.kind, cell.engine_version, cell.band, cell.species],
    );
    return r.rows;
  },

  async insertVersion(
    db: Queryable,
    cell: PoolCell,
    v: { params: unknown; report: unknown; shadow: unknown; status: 'shadow' | 'refused' },
  ): Promise<number> {
    const r = await db.query<{ id: string | number }>(
      `insert into pooled_calibrations (kind, engine_version, species, band, params, report, shadow, status)
       values ($1, $2, $3, $4, $5, $6, $7, $8) returning id`,
      [
        cell.kind,
        cell.engine_version,
        cell.species,
        cell.band,
        v.params === null ? null : JSON.stringify(v.params),
        JSON.stringify(v.report),
        v.shadow === null ? null : JSON.stringify(v.shadow),
        v.status,
      ],
    );
    return Number(r.rows[0]!.id);
  },

  async serving(db: Queryable, cell: PoolCell): Promise<PooledVersion | null> {
    const r = await db.query<PooledVersion>(
      `select * from pooled_calibrations where kind = $1 and engine_version = $2 and species = $3 and band = $4 and status = 'serving'`,
      [cell.kind, cell.engine_version, cell.species, cell.band],
    );
    return r.rows[0] ? version(r.rows[0]) : null;
  },

  async byId(db: Queryable, id: number): Promise<PooledVersion | null> {
    const r = await db.query<PooledVersion>('select * from pooled_calibrations where id = $1', [id]);
    return r.rows[0] ? version(r.rows[0]) : null;
  },

  async list(db: Queryable, limit = 100): Promise<PooledVersion[]> {
    const r = await db.query<PooledVersion>('select * from pooled_calibrations order by id desc limit $1', [limit]);
    return r.rows.map(version);
  },

  /** Makes a shadow (or an earlier) version the cell's serving one; the one serving before is retired. */
  async promote(db: Queryable, id: number): Promise<void> {
    await db.query(
      `update pooled_calibrations p set status = 'retired', retired_at = now()
         from pooled_calibrations n
        where n.id = $1 and p.status = 'serving' and p.id <> n.id
          and p.kind = n.kind and p.engine_version = n.engine_version and p.species = n.species and p.band = n.band`,
      [id],
    );
    await db.query(`update pooled_calibrations set status = 'serving', promoted_at = now(), retired_at = null where id = $1`, [id]);
  },

  /** Rolls the serving version back; the version retired most recently before it serves again. Answers that one's id, or null. */
  async rollback(db: Queryable, id: number): Promise<number | null> {
    const v = await this.byId(db, id);
    if (!v || v.status !== 'serving') return null;
    await db.query(`update pooled_calibrations set status = 'rolled_back', retired_at = now() where id = $1`, [id]);
    const prev = await db.query<{ id: string | number }>(
      `select id from pooled_calibrations where kind = $1 and engine_version = $2 and species = $3 and band = $4
          and status = 'retired' and params is not null and id < $5 order by id desc limit 1`,
      [v.kind, v.engine_version, v.species, v.band, id],
    );
    const back = prev.rows[0] ? Number(prev.rows[0].id) : null;
    if (back !== null) await db.query(`update pooled_calibrations set status = 'serving', retired_at = null where id = $1`, [back]);
    return back;
  },

  /** Whether the scope's account contributes its answers to the pool (on unless it opted out). */
  async contributes(db: Queryable, scope: OwnerScope): Promise<boolean> {
    const r = await db.query<{ c: boolean }>('select calibration_contribute as c from accounts where id = $1', [scope.ownerId]);
    return r.rows[0]?.c ?? true;
  },

  /** An owner's choice; opting out also deletes the samples their answers became. */
  async setContributes(db: Queryable, scope: OwnerScope, contribute: boolean): Promise<{ deleted: number }> {
    await db.query('update accounts set calibration_contribute = $2 where id = $1', [scope.ownerId, contribute]);
    if (contribute) return { deleted: 0 };
    const r = await db.query('delete from calibration_samples where owner_id = $1', [scope.ownerId]);
    return { deleted: r.affectedRows };
  },

  /** Usernames for the operator's view of owners a fit set aside. */
  async accountNames(db: Queryable, ids: readonly string[]): Promise<Map<string, string>> {
    if (!ids.length) return new Map();
    const r = await db.query<{ id: string; username: string }>('select id, username from accounts where id = any($1::uuid[])', [ids]);
    return new Map(r.rows.map((x) => [x.id, x.username]));
  },

  /** How many samples the scope's account's answers became. */
  async samplesOfOwner(db: Queryable, scope: OwnerScope): Promise<number> {
    const r = await db.query<{ n: number }>('select count(*)::int as n from calibration_samples where owner_id = $1', [scope.ownerId]);
    return r.rows[0]!.n;
  },
};
