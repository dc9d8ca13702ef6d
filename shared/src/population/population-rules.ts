import { renderMessage, type Lang } from '../domain/messages.js';
import { animalDid } from '../domain/animal-did.js';

/** Spec section 8: the alerts list covers unresolved alerts of the last 48 hours. */
export const ALERT_WINDOW_HOURS = 48;
/** The zone's "recent counts": at most this many, taken within this many days. */
export const BASELINE_COUNTS = 5;
export const BASELINE_DAYS = 30;
/** A drop is sudden when it loses at least this share of the baseline (and at least one head). */
export const DROP_SHARE = 0.2;
/** Default for `stale_after_days` when a count does not say. */
export const DEFAULT_STALE_DAYS = 7;

export type AlertRule = 'below_enrolled' | 'sudden_drop' | 'not_seen';

/** A population_alerts row as read from the database. */
export interface AlertRow {
  id: string;
  farm_id: string;
  zone: string;
  count_id: string;
  rule: AlertRule;
  individual_id: string | null;
  facts: Record<string, unknown>;
  created_at: Date;
  resolved_at: Date | null;
  resolved_note: string | null;
}

/** One alert as the API answers it (AlertOut in the OpenAPI). */
export interface AlertOut {
  alert_id: string;
  farm_id: string;
  zone: string;
  rule: AlertRule;
  message: string;
  animal_did: string | null;
  facts: Record<string, unknown>;
  count_id: string;
  created_at: string;
  resolved_at: string | null;
  resolved_note: string | null;
}

/** Median of the values, or null for none. */
export function median(xs: number[]): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** True when `count` fell from `baseline` by at least DROP_SHARE of it, and by one head or more. */
export function dropIsSudden(baseline: number, count: number): boolean {
  const drop = baseline - count;
  return drop >= 1 && drop >= Math.ceil(baseline * DROP_SHARE);
}

const RULE_MESSAGE = {
  below_enrolled: 'population_below_enrolled',
  sudden_drop: 'population_sudden_drop',
  not_seen: 'population_not_seen',
} as const;

export function alertOut(a: AlertRow, lang: Lang): AlertOut {
  const did = a.individual_id ? animalDid(a.individual_id) : null;
  const label = (a.facts.name as string | null) || did;
  return {
    alert_id: a.id,
    farm_id: a.farm_id,
    zone: a.zone,
    rule: a.rule,
    message: renderMessage(RULE_MESSAGE[a.rule], lang, { zone: a.zone, label, ...a.facts }),
    animal_did: did,
    facts: a.facts,
    count_id: a.count_id,
    created_at: a.created_at.toISOString(),
    resolved_at: a.resolved_at ? a.resolved_at.toISOString() : null,
    resolved_note: a.resolved_note,
  };
}
