import { randomUUID } from 'node:crypto';
import { animalDid } from '../domain/animal-did.js';
import { ERRORS } from '../domain/errors.js';
import type { Database, Queryable } from '../ports/database.port.js';
import type { OwnerScope } from '../access/owner-scope.js';
import type { HeadRow, PopulationRepo } from '../repos/population.repo.js';
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

const iso = (d: Date) => d.toISOString();

/** The ports the service uses: the database for its transaction, and the population repository. */
export interface PopulationDeps {
  db: Pick<Database, 'transaction'> & Queryable;
  population: PopulationRepo;
}

/**
 * Population counts with alerts. A farm is the caller's when the caller has enrolled an
 * individual into it, or owns its farm row; anything else (a stranger's farm, a farm that
 * does not exist) is the same 404. Every query carries the caller's `OwnerScope` (made from the
 * token, or from the job the API queued with it), never an id from the body.
 */
export function createPopulationService({ db, population: repo }: PopulationDeps) {
  async function assertFarm(q: Queryable, scope: OwnerScope, farmId: string): Promise<void> {
    if (!(await repo.farmIsOwn(q, scope, farmId))) throw ERRORS.notFound();
  }

  const herd = (q: Queryable, scope: OwnerScope, farmId: string, zone: string): Promise<HeadRow[]> => repo.herd(q, scope, farmId, zone);

  const recentCounts = (q: Queryable, scope: OwnerScope, farmId: string, zone: string): Promise<number[]> =>
    repo.recentCounts(q, scope, farmId, zone, BASELINE_DAYS, BASELINE_COUNTS);

  const insertAlert = (
    tx: Queryable,
    base: { scope: OwnerScope; farm: string; zone: string; countId: string },
    rule: AlertRule,
    facts: Record<string, unknown>,
    individualId: string | null,
  ): Promise<AlertRow> =>
    repo.insertAlert(tx, base.scope, {
      farm_id: base.farm,
      zone: base.zone,
      count_id: base.countId,
      rule,
      individual_id: individualId,
      facts,
    });

  /** An animal already reported unseen (and not resolved) within the alert window is not reported again. */
  const alreadyOpen = (tx: Queryable, scope: OwnerScope, individualId: string): Promise<boolean> =>
    repo.notSeenOpen(tx, scope, individualId, ALERT_WINDOW_HOURS);

  async function raise(tx: Queryable, scope: OwnerScope, input: CountInput, countId: string, heads: HeadRow[], previous: number[]) {
    const base = { scope, farm: input.farm_id, zone: input.zone, countId };
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
      if (now - h.last_seen.getTime() < staleMs || (await alreadyOpen(tx, scope, h.id))) continue;
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
    async count(scope: OwnerScope, input: CountInput, media: StoredMedia[], lang: 'vi' | 'en'): Promise<CountResult> {
      await assertFarm(db, scope, input.farm_id);
      return db.transaction(async (tx) => {
        const heads = await herd(tx, scope, input.farm_id, input.zone);
        const previous = await recentCounts(tx, scope, input.farm_id, input.zone);
        const countId = randomUUID();
        const createdAt = await repo.insertCount(tx, scope, {
          id: countId,
          farm_id: input.farm_id,
          zone: input.zone,
          count: input.count,
          method: input.method,
          note: input.note ?? null,
          media_cids: media.map((m) => m.cid),
        });
        const { rows, baseline } = await raise(tx, scope, input, countId, heads, previous);
        return {
          count_id: countId,
          farm_id: input.farm_id,
          zone: input.zone,
          count: input.count,
          method: input.method,
          media: media.map((m) => ({ cid: m.cid, content_type: m.contentType })),
          created_at: iso(createdAt),
          enrolled: heads.length,
          baseline,
          alerts: rows.map((a) => alertOut(a, lang)),
        };
      });
    },

    /** Unresolved alerts of the farm raised in the last 48 hours, newest first. */
    async alerts(scope: OwnerScope, farmId: string, lang: 'vi' | 'en'): Promise<AlertOut[]> {
      await assertFarm(db, scope, farmId);
      const rows = await repo.openAlerts(db, scope, farmId, ALERT_WINDOW_HOURS);
      return rows.map((a) => alertOut(a, lang));
    },

    /** Mark one alert resolved; resolving it again changes nothing. Not yours is 404. */
    async resolve(scope: OwnerScope, alertId: string, note: string | undefined, lang: 'vi' | 'en'): Promise<AlertOut> {
      // A malformed id is simply not found, like a stranger's alert.
      if (!isUuid(alertId)) throw ERRORS.notFound();
      const row = await repo.resolveAlert(db, scope, alertId, note ?? null);
      if (!row) throw ERRORS.notFound();
      return alertOut(row, lang);
    },

    /** The dashboard: each zone's latest count against its enrolled head, and the farm's total. */
    async dashboard(scope: OwnerScope, farmId: string) {
      await assertFarm(db, scope, farmId);
      const out = [];
      for (const zone of await repo.zones(db, scope, farmId)) out.push(await zoneStatus(db, scope, farmId, zone));
      const enrolled = await repo.animalCount(db, scope, farmId);
      const counted = out.filter((z) => z.latest_count !== null);
      return {
        farm_id: farmId,
        total_head: counted.length ? counted.reduce((s, z) => s + z.latest_count!, 0) : null,
        enrolled_head: enrolled,
        open_alerts: out.reduce((s, z) => s + z.open_alerts, 0),
        zones: out,
      };
    },
  };

  async function zoneStatus(q: Queryable, scope: OwnerScope, farmId: string, zone: string) {
    const l = await repo.latestCount(q, scope, farmId, zone);
    const openAlerts = await repo.openAlertCount(q, scope, farmId, zone, ALERT_WINDOW_HOURS);
    const heads = await herd(q, scope, farmId, zone);
    const status: 'not_counted' | 'alert' | 'ok' = !l ? 'not_counted' : openAlerts > 0 ? 'alert' : 'ok';
    return {
      zone,
      status,
      latest_count: l ? l.count : null,
      method: l?.method ?? null,
      counted_at: l ? iso(l.created_at) : null,
      enrolled: heads.length,
      open_alerts: openAlerts,
    };
  }
}

export type PopulationService = ReturnType<typeof createPopulationService>;
