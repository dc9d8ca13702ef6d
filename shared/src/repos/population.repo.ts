/**
 * Statements on `population_counts` and `population_alerts`, and the reads of a farm's animals
 * they are compared against. Counts and alerts are their account's own only
 * (shared/src/access/policy.ts): every statement takes the caller's `OwnerScope`, never a bare id.
 * Which rules raise which alert is population.service's (and population-rules.ts's) business.
 */
import { randomUUID } from 'node:crypto';
import type { OwnerScope } from '../access/owner-scope.js';
import type { Queryable } from '../ports/database.port.js';
import type { AlertRow, AlertRule } from '../population/population-rules.js';

/** One enrolled animal a zone is compared against, with the last time it was seen. */
export interface HeadRow {
  id: string;
  name: string | null;
  created_at: Date;
  last_seen: Date;
}

export interface NewCount {
  id: string;
  farm_id: string;
  zone: string;
  count: number;
  method: string;
  note: string | null;
  media_cids: string[];
}

export interface NewAlert {
  farm_id: string;
  zone: string;
  count_id: string;
  rule: AlertRule;
  individual_id: string | null;
  facts: Record<string, unknown>;
}

export const populationRepo = {
  /** Whether the farm is the owner's: an individual enrolled into it, or its farm row. */
  async farmIsOwn(db: Queryable, scope: OwnerScope, farmId: string): Promise<boolean> {
    const r = await db.query(
      `select 1 from individuals where owner_id = $1 and farm_id = $2 and deleted_at is null
        union all select 1 from farms where owner_id = $1 and farm_id = $2 limit 1`,
      [scope.ownerId, farmId],
    );
    return r.rows.length > 0;
  },

  /**
   * The farm's live animals that a zone is compared against: those enrolled with that zone, or,
   * when no animal of the farm names a zone, the whole farm (a farm counted as one herd). Each with
   * the last time it was seen: enrolment, a stored identify result naming it as the match, or an
   * identify_verdict label confirming it. Oldest enrolment first.
   */
  async herd(db: Queryable, scope: OwnerScope, farmId: string, zone: string): Promise<HeadRow[]> {
    const r = await db.query<HeadRow>(
      `with farm as (
         select id, name, created_at, attrs->>'zone' as zone from individuals
          where owner_id = $1 and farm_id = $2 and kind = 'animal' and deleted_at is null),
       zoned as (select count(*) as n from farm where zone is not null)
       select f.id, f.name, f.created_at,
              greatest(f.created_at,
                (select max(q.created_at) from identify_queries q
                  where q.owner_id = $1 and q.kind = 'animal' and q.result->'match'->>'individual_id' = f.id::text),
                (select max(v.created_at) from identify_verdicts v
                  where v.owner_id = $1 and v.correct_id = f.id and v.verdict in ('correct', 'other'))) as last_seen
         from farm f, zoned
        where zoned.n = 0 or f.zone = $3
        order by f.created_at`,
      [scope.ownerId, farmId, zone],
    );
    return r.rows.map((h) => ({ ...h, created_at: new Date(h.created_at), last_seen: new Date(h.last_seen) }));
  },

  /** The zone's counts of the last `days` days, newest first, at most `limit`. */
  async recentCounts(db: Queryable, scope: OwnerScope, farmId: string, zone: string, days: number, limit: number): Promise<number[]> {
    const r = await db.query<{ count: number }>(
      `select count from population_counts
        where owner_id = $1 and farm_id = $2 and zone = $3 and created_at > now() - make_interval(days => $4)
        order by created_at desc limit $5`,
      [scope.ownerId, farmId, zone, days, limit],
    );
    return r.rows.map((x) => Number(x.count));
  },

  /** Stores a count; returns when it was stored. */
  async insertCount(db: Queryable, scope: OwnerScope, c: NewCount): Promise<Date> {
    const r = await db.query<{ created_at: Date }>(
      `insert into population_counts (id, owner_id, farm_id, zone, count, method, note, media_cids)
       values ($1, $2, $3, $4, $5, $6, $7, $8) returning created_at`,
      [c.id, scope.ownerId, c.farm_id, c.zone, c.count, c.method, c.note, c.media_cids],
    );
    return new Date(r.rows[0]!.created_at);
  },

  /** Stores an alert under a new id and returns its row. */
  async insertAlert(db: Queryable, scope: OwnerScope, a: NewAlert): Promise<AlertRow> {
    const r = await db.query<AlertRow>(
      `insert into population_alerts (id, owner_id, farm_id, zone, count_id, rule, individual_id, facts)
       values ($1, $2, $3, $4, $5, $6, $7, $8) returning *`,
      [randomUUID(), scope.ownerId, a.farm_id, a.zone, a.count_id, a.rule, a.individual_id, JSON.stringify(a.facts)],
    );
    return r.rows[0]!;
  },

  /** Whether the animal has a `not_seen` alert still open from the last `hours` hours. */
  async notSeenOpen(db: Queryable, scope: OwnerScope, individualId: string, hours: number): Promise<boolean> {
    const r = await db.query(
      `select 1 from population_alerts where owner_id = $1 and individual_id = $2 and rule = 'not_seen'
          and resolved_at is null and created_at > now() - make_interval(hours => $3) limit 1`,
      [scope.ownerId, individualId, hours],
    );
    return r.rows.length > 0;
  },

  /** The farm's unresolved alerts of the last `hours` hours, newest first. */
  async openAlerts(db: Queryable, scope: OwnerScope, farmId: string, hours: number): Promise<AlertRow[]> {
    const r = await db.query<AlertRow>(
      `select * from population_alerts where owner_id = $1 and farm_id = $2 and resolved_at is null
          and created_at > now() - make_interval(hours => $3) order by created_at desc, id`,
      [scope.ownerId, farmId, hours],
    );
    return r.rows;
  },

  /** How many of a zone's alerts of the last `hours` hours are unresolved. */
  async openAlertCount(db: Queryable, scope: OwnerScope, farmId: string, zone: string, hours: number): Promise<number> {
    const r = await db.query<{ n: number }>(
      `select count(*)::int as n from population_alerts where owner_id = $1 and farm_id = $2 and zone = $3
          and resolved_at is null and created_at > now() - make_interval(hours => $4)`,
      [scope.ownerId, farmId, zone, hours],
    );
    return r.rows[0]?.n ?? 0;
  },

  /** Marks the owner's alert resolved (the first resolution and its note stay); null when it is not the owner's. */
  async resolveAlert(db: Queryable, scope: OwnerScope, alertId: string, note: string | null): Promise<AlertRow | null> {
    const r = await db.query<AlertRow>(
      `update population_alerts set resolved_at = coalesce(resolved_at, now()), resolved_note = coalesce(resolved_note, $3)
        where id = $1 and owner_id = $2 returning *`,
      [alertId, scope.ownerId, note],
    );
    return r.rows[0] ?? null;
  },

  /** Every zone of the farm: counted ones and those its live animals were enrolled with, sorted. */
  async zones(db: Queryable, scope: OwnerScope, farmId: string): Promise<string[]> {
    const r = await db.query<{ zone: string }>(
      `select zone from population_counts where owner_id = $1 and farm_id = $2
        union select attrs->>'zone' from individuals
         where owner_id = $1 and farm_id = $2 and kind = 'animal' and deleted_at is null and attrs->>'zone' is not null
        order by 1`,
      [scope.ownerId, farmId],
    );
    return r.rows.map((x) => x.zone);
  },

  /** How many live animals the farm holds. */
  async animalCount(db: Queryable, scope: OwnerScope, farmId: string): Promise<number> {
    const r = await db.query<{ n: number }>(
      `select count(*)::int as n from individuals where owner_id = $1 and farm_id = $2 and kind = 'animal' and deleted_at is null`,
      [scope.ownerId, farmId],
    );
    return r.rows[0]?.n ?? 0;
  },

  /** The zone's newest count, if any. */
  async latestCount(
    db: Queryable,
    scope: OwnerScope,
    farmId: string,
    zone: string,
  ): Promise<{ count: number; method: string; created_at: Date } | null> {
    const r = await db.query<{ count: number; method: string; created_at: Date }>(
      `select count, method, created_at from population_counts where owner_id = $1 and farm_id = $2 and zone = $3 order by created_at desc limit 1`,
      [scope.ownerId, farmId, zone],
    );
    const l = r.rows[0];
    return l ? { count: Number(l.count), method: l.method, created_at: new Date(l.created_at) } : null;
  },
};

export type PopulationRepo = typeof populationRepo;
