/**
 * Residue interpretation (spec section 4 "Residue interpretation"): measured residues against
 * the Codex, EU and Vietnamese limits, reduced to a five-level verdict, one friendly farmer
 * alert, an advisory per market and, when cadmium was measured, a cadmium risk level. Read-only
 * and pure; it never shows scores or margins (how far under or over a limit a value is).
 *
 * Verdicts, most severe first:
 * - DANGER: a residue is over the Vietnamese or Codex limit, or banned there;
 * - WARNING: over the limit (or banned) only in an export market (EU);
 * - UNKNOWN: no limit is known anywhere for some residue, nothing was measured, or the
 *   measurements could not be resolved (fail-closed);
 * - CAUTION: every residue is within its limits, some at half a limit or more;
 * - SAFE: every residue is within every known limit, well below them.
 */
import { renderMessage, type Lang } from '../messages.js';
import type { BannedCatalogue } from '../care/catalogue.js';
import { MARKETS, marketRule, resolveAnalyte, type LimitSource, type Market, type MrlTable } from './limits.js';

export const VERDICTS = ['SAFE', 'CAUTION', 'WARNING', 'DANGER', 'UNKNOWN'] as const;
export type Verdict = (typeof VERDICTS)[number];
export const UNITS = ['mg/kg', 'ppm', 'ug/kg', 'µg/kg', 'ppb'] as const;
export type Unit = (typeof UNITS)[number];

export interface Measurement {
  analyte: string;
  value: number;
  unit: Unit;
  commodity?: string;
}

export interface InterpretInput {
  commodity?: string;
  region?: string;
  measurements: Measurement[];
}

type Status = 'within' | 'near' | 'over' | 'banned' | 'no_limit';
type AdviceStatus = 'ok' | 'caution' | 'not_allowed' | 'unknown';

const toMgKg = (m: Measurement) => (m.unit === 'mg/kg' || m.unit === 'ppm' ? m.value : m.value / 1000);

/** At half a limit or more a residue is "near": the next harvest may cross it. */
const NEAR = 0.5;

function statusOf(value: number, rule: ReturnType<typeof marketRule>): Status {
  if (rule.kind === 'none') return 'no_limit';
  if (rule.kind === 'banned') return value > 0 ? 'banned' : 'within';
  if (value > rule.limit_mg_kg || (rule.limit_kind === 'rpa' && value >= rule.limit_mg_kg)) return 'over';
  return value >= NEAR * rule.limit_mg_kg ? 'near' : 'within';
}

interface AnalyteView {
  analyte: string;
  name: string;
  commodity: string | null;
  markets: { market: Market; status: Status; limit_mg_kg?: number; limit_kind?: string; source?: LimitSource }[];
}

function judge(m: Measurement, commodity: string, table: MrlTable, catalogue: BannedCatalogue | null): AnalyteView {
  const a = resolveAnalyte(m.analyte, table, catalogue);
  const value = toMgKg(m);
  return {
    analyte: m.analyte,
    name: a.name,
    commodity: commodity || null,
    markets: MARKETS.map((market) => {
      const rule = marketRule(table, market, a, commodity);
      const status = statusOf(value, rule);
      if (rule.kind === 'limit') return { market, status, limit_mg_kg: rule.limit_mg_kg, limit_kind: rule.limit_kind, source: rule.source };
      return rule.kind === 'banned' ? { market, status, source: rule.source } : { market, status };
    }),
  };
}

const bad = (s: Status) => s === 'over' || s === 'banned';
const listNames = (xs: AnalyteView[]) => [...new Set(xs.map((x) => x.name))].join(', ');

function verdictOf(views: AnalyteView[]): { verdict: Verdict; names: string } {
  const st = (v: AnalyteView, m: Market) => v.markets.find((x) => x.market === m)!.status;
  const danger = views.filter((v) => bad(st(v, 'vn')) || bad(st(v, 'codex')));
  if (danger.length) return { verdict: 'DANGER', names: listNames(danger) };
  const warning = views.filter((v) => bad(st(v, 'eu')));
  if (warning.length) return { verdict: 'WARNING', names: listNames(warning) };
  const unknown = views.filter((v) => v.markets.every((x) => x.status === 'no_limit'));
  if (unknown.length || views.length === 0) return { verdict: 'UNKNOWN', names: listNames(unknown) };
  const near = views.filter((v) => v.markets.some((x) => x.status === 'near'));
  return near.length ? { verdict: 'CAUTION', names: listNames(near) } : { verdict: 'SAFE', names: '' };
}

function advisory(views: AnalyteView[], table: MrlTable, lang: Lang, failed: boolean) {
  return MARKETS.map((market) => {
    const statuses = views.map((v) => v.markets.find((x) => x.market === market)!.status);
    const status: AdviceStatus =
      failed || statuses.length === 0
        ? 'unknown'
        : statuses.some(bad)
          ? 'not_allowed'
          : statuses.some((s) => s === 'no_limit')
            ? 'unknown'
            : statuses.some((s) => s === 'near')
              ? 'caution'
              : 'ok';
    const def = table.markets[market];
    const name = lang === 'en' ? def.name_en : def.name_vi;
    return { market, name, role: def.role, status, advice: renderMessage(`residue_advice_${status}`, lang, { market: name }) };
  });
}

/** Cadmium measured → a risk level for the region (low, medium, high) against the strictest known cadmium limit. */
function cadmiumRisk(views: AnalyteView[], measurements: Measurement[], region: string | undefined) {
  let level: 'low' | 'medium' | 'high' | null = null;
  views.forEach((v, i) => {
    const cd = v.markets.filter((x) => x.limit_kind === 'ml' && x.limit_mg_kg !== undefined);
    if (!cd.length || !/cadmi|^cd$/i.test(v.analyte.trim())) return;
    const value = toMgKg(measurements[i]!);
    const strictest = Math.min(...cd.map((x) => x.limit_mg_kg!));
    const l = value > strictest ? 'high' : value >= NEAR * strictest ? 'medium' : 'low';
    if (level === null || ['low', 'medium', 'high'].indexOf(l) > ['low', 'medium', 'high'].indexOf(level)) level = l;
  });
  return level ? { region: region?.trim() || null, level } : undefined;
}

const ALERT = {
  SAFE: 'residue_alert_safe',
  CAUTION: 'residue_alert_caution',
  WARNING: 'residue_alert_warning',
  DANGER: 'residue_alert_danger',
  UNKNOWN: 'residue_alert_unknown_limits',
} as const satisfies Record<Verdict, string>;

/** Interprets measurements that are in hand. */
export function interpret(input: InterpretInput, table: MrlTable, catalogue: BannedCatalogue | null, lang: Lang) {
  const views = input.measurements.map((m) => judge(m, (m.commodity ?? input.commodity ?? '').trim(), table, catalogue));
  const { verdict, names } = verdictOf(views);
  const alertCode = ALERT[verdict];
  const risk = cadmiumRisk(views, input.measurements, input.region);
  return {
    verdict,
    alert: renderMessage(alertCode, lang, { names }),
    export_advisory: advisory(views, table, lang, false),
    residues: views,
    ...(risk ? { cadmium_risk: risk } : {}),
  };
}

/** The fail-closed answer when measurements could not be resolved: UNKNOWN, every market unknown. */
export function unresolved(table: MrlTable, lang: Lang) {
  return {
    verdict: 'UNKNOWN' as Verdict,
    alert: renderMessage('residue_alert_unresolved', lang),
    export_advisory: advisory([], table, lang, true),
    residues: [] as AnalyteView[],
  };
}
