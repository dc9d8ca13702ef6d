import { randomUUID } from 'node:crypto';
import type { Container } from '../container.js';
import { animalDid } from '../domain/animal-did.js';
import { ERRORS } from '../domain/errors.js';
import type { Queryable } from '../ports/database.port.js';
import type { StoredMedia } from '../domain/stored-media.js';
import {
  ALERT_WINDOW_HOURS,
  alertOut,
  BASELINE_COUNTS,
  BASELINE_DAYS,
  dropIsSudden,
  median,
  type AlertOut,
  type AlertRow,
  type AlertRule,
} from './population-rules.js';
import { isUuid } from '../domain/ids.js';

/** One count as the caller sends it (validated at the edge). */
export interface CountInput {
  farm_id: string;
  zone: string;
  count: number;
  method: string;
  note?: string | undefined;
  /** An enrolled animal not re-identified for this many days raises `not_seen`. */
  stale_after_days: number;
}

export interface CountResult {
  count_id: string;
  farm_id: string;
  zone: string;
  count: number;
  method: string;
  media: { cid: string; content_type: string }[];
  created_at: string;
  /** Enrolled animals the zone is compared against. */
  enrolled: number;
  /** Median of the zone's recent counts before this one; null when there were none. */
  baseline: number | null;
  alerts: AlertOut[];
}

interface HeadRow {
  id: string;
  name: string | null;
  created_at: Date;
  last_seen: Date;
}

const iso = (d: Date) => d.toISOString();

/**
 * Population counts with alerts. A farm is the caller's when the caller has enrolled an
 * individual into it, or owns its farm row; anything else (a stranger's farm, a farm that
 * does not exist) is the same 404. Every query carries the caller's id, never one from the body.
 */
export function createPopulationService(c: Container) {
  const { db } = c;

  async function assertFarm(q: Queryable, ownerId: string, farmId: string): Promise<void> {
    const r = await q.query(
      `select 1 from individuals where owner_id = $1 and farm_id = $2 and deleted_at is null
        union all select 1 from farms where owner_id = $1 and farm_id = $2 limit 1`,
      [ownerId, farmId],
    );
    if (!r.rows.length) throw ERRORS.notFound();
  }

  /**
   * The farm's animals that a zone is compared against: those enrolled with that zone, or, when
   * no animal of the farm names a zone, the whole farm (a farm counted as one herd). Each with
   * the last time it was seen: enrolment, a stored identify result naming it as the match, or
   * an identify_verdict label confirming it.
   */
  async function herd(q: Queryable, ownerId: string, farmId: string, zone: string): Promise<HeadRow[]> {
    const r = await q.query<HeadRow>(
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
      [ownerId, farmId, zone],
    );
    return r.rows;
  }

  async function recentCounts(q: Queryable, ownerId: string, farmId: string, zone: string): Promise<number[]> {
    const r = await q.query<{ count: number }>(
      `select count from population_counts
        where owner_id = $1 and farm_id = $2 and zone = $3 and created_at > now() - make_interval(days => $4)
        order by created_at desc limit $5`,
      [ownerId, farmId, zone, BASELINE_DAYS, BASELINE_COUNTS],
    );
    return r.rows.map((x) => Number(x.count));
  }

  async function insertAlert(
    tx: Queryable,
    base: { owner: string; farm: string; zone: string; countId: string },
    rule: AlertRule,
    facts: Record<string, unknown>,
    individualId: string | null,
  ) {
    const r = await tx.query<AlertRow>(
      `insert into population_alerts (id, owner_id, farm_id, zone, count_id, rule, individual_id, facts)
       values ($1, $2, $3, $4, $5, $6, $7, $8) returning *`,
      [randomUUID(), base.owner, base.farm, base.zone, base.countId, rule, individualId, JSON.stringify(facts)],
    );
    return r.rows[0]!;
  }

  /** `not_seen` once per animal while an earlier alert about it is still open and in the window. */
  async function alreadyOpen(tx: Queryable, ownerId: string, individualId: string): Promise<boolean> {
    const r = await tx.query(
      `select 1 from population_alerts where owner_id = $1 and individual_id = $2 and rule = 'not_seen'
          and resolved_at is null and created_at > now() - make_interval(hours => $3) limit 1`,
      [ownerId, individualId, ALERT_WINDOW_HOURS],
    );
    return r.rows.length > 0;
  }

  async function raise(tx: Queryable, ownerId: string, input: CountInput, countId: string, heads: HeadRow[], previous: number[]) {
    const base = { owner: ownerId, farm: input.farm_id, zone: input.zone, countId };
    const out: AlertRow[] = [];
    if (input.count < heads.length) {
      out.push(
        await insertAlert(
          tx,
          base,
          'below_enrolled',
          { counted: input.count, enrolled: heads.length, missing: heads.length - input.count },
          null,
        ),
      );
    }
    const baseline = median(previous);
    if (baseline !== null && dropIsSudden(baseline, input.count)) {
      out.push(await insertAlert(tx, base, 'sudden_drop', { counted: input.count, baseline, recent: previous }, null));
    }
    const staleMs = input.stale_after_days * 86_400_000;
    const now = Date.now();
    for (const h of heads) {
      if (now - h.last_seen.getTime() < staleMs || (await alreadyOpen(tx, ownerId, h.id))) continue;
      const days = Math.floor((now - h.last_seen.getTime()) / 86_400_000);
      const facts = {
        animal_did: animalDid(h.id),
        name: h.name,
        last_seen_at: iso(h.last_seen),
        days_unseen: days,
        stale_after_days: input.stale_after_days,
      };
      out.push(await insertAlert(tx, base, 'not_seen', facts, h.id));
    }
    return { rows: out, baseline };
  }

  return {
    /** Record one count and raise its alerts, all in one transaction. `media` was stored by the caller's upload step. */
    async count(ownerId: string, input: CountInput, media: StoredMedia[], lang: 'vi' | 'en'): Promise<CountResult> {
      await assertFarm(db, ownerId, input.farm_id);
      return db.transaction(async (tx) => {
        const heads = await herd(tx, ownerId, input.farm_id, input.zone);
        const previous = await recentCounts(tx, ownerId, input.farm_id, input.zone);
        const countId = randomUUID();
        const row = await tx.query<{ created_at: Date }>(
          `insert into population_counts (id, owner_id, farm_id, zone, count, method, note, media_cids)
           values ($1, $2, $3, $4, $5, $6, $7, $8) returning created_at`,
          [countId, ownerId, input.farm_id, input.zone, input.count, input.method, input.note ?? null, media.map((m) => m.cid)],
        );
        const { rows, baseline } = await raise(tx, ownerId, input, countId, heads, previous);
        return {
          count_id: countId,
          farm_id: input.farm_id,
          zone: input.zone,
          count: input.count,
          method: input.method,
          media: media.map((m) => ({ cid: m.cid, content_type: m.contentType })),
          created_at: iso(row.rows[0]!.created_at),
          enrolled: heads.length,
          baseline,
          alerts: rows.map((a) => alertOut(a, lang)),
        };
      });
    },

    /** Unresolved alerts of the farm raised in the last 48 hours, newest first. */
    async alerts(ownerId: string, farmId: string, lang: 'vi' | 'en'): Promise<AlertOut[]> {
      await assertFarm(db, ownerId, farmId);
      const r = await db.query<AlertRow>(
        `select * from population_alerts where owner_id = $1 and farm_id = $2 and resolved_at is null
            and created_at > now() - make_interval(hours => $3) order by created_at desc, id`,
        [ownerId, farmId, ALERT_WINDOW_HOURS],
      );
      return r.rows.map((a) => alertOut(a, lang));
    },

    /** Mark one alert resolved; resolving it again changes nothing. Not yours is 404. */
    async resolve(ownerId: string, alertId: string, note: string | undefined, lang: 'vi' | 'en'): Promise<AlertOut> {
      // A malformed id is simply not found, like a stranger's alert.
      if (!isUuid(alertId)) throw ERRORS.notFound();
      const r = await db.query<AlertRow>(
        `update population_alerts set resolved_at = coalesce(resolved_at, now()), resolved_note = coalesce(resolved_note, $3)
          where id = $1 and owner_id = $2 returning *`,
        [alertId, ownerId, note ?? null],
      );
      if (!r.rows[0]) throw ERRORS.notFound();
      return alertOut(r.rows[0], lang);
    },

    /** The dashboard: each zone's latest count against its enrolled head, and the farm's total. */
    async dashboard(ownerId: string, farmId: string) {
      await assertFarm(db, ownerId, farmId);
      const zones = await db.query<{ zone: string }>(
        `select zone from population_counts where owner_id = $1 and farm_id = $2
          union select attrs->>'zone' from individuals
           where owner_id = $1 and farm_id = $2 and kind = 'animal' and deleted_at is null and attrs->>'zone' is not null
          order by 1`,
        [ownerId, farmId],
      );
      const out = [];
      for (const { zone } of zones.rows) out.push(await zoneStatus(db, ownerId, farmId, zone));
      const enrolled = await db.query<{ n: number }>(
        `select count(*)::int as n from individuals where owner_id = $1 and farm_id = $2 and kind = 'animal' and deleted_at is null`,
        [ownerId, farmId],
      );
      const counted = out.filter((z) => z.latest_count !== null);
      return {
        farm_id: farmId,
        total_head: counted.length ? counted.reduce((s, z) => s + z.latest_count!, 0) : null,
        enrolled_head: enrolled.rows[0]!.n,
        open_alerts: out.reduce((s, z) => s + z.open_alerts, 0),
        zones: out,
      };
    },
  };

  async function zoneStatus(q: Queryable, ownerId: string, farmId: string, zone: string) {
    const latest = await q.query<{ count: number; method: string; created_at: Date }>(
      `select count, method, created_at from population_counts where owner_id = $1 and farm_id = $2 and zone = $3 order by created_at desc limit 1`,
      [ownerId, farmId, zone],
    );
    const open = await q.query<{ n: number }>(
      `select count(*)::int as n from population_alerts where owner_id = $1 and farm_id = $2 and zone = $3
          and resolved_at is null and created_at > now() - make_interval(hours => $4)`,
      [ownerId, farmId, zone, ALERT_WINDOW_HOURS],
    );
    const heads = await herd(q, ownerId, farmId, zone);
    const l = latest.rows[0];
    const openAlerts = open.rows[0]!.n;
    const status: 'not_counted' | 'alert' | 'ok' = !l ? 'not_counted' : openAlerts > 0 ? 'alert' : 'ok';
    return {
      zone,
      status,
      latest_count: l ? Number(l.count) : null,
      method: l?.method ?? null,
      counted_at: l ? iso(l.created_at) : null,
      enrolled: heads.length,
      open_alerts: openAlerts,
    };
  }
}

export type PopulationService = ReturnType<typeof createPopulationService>;
