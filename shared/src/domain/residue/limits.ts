/**
 * Maximum residue limits (Codex, EU, Vietnam) shipped as data (shared/data/residue/mrls.json),
 * and how one measured analyte is resolved against them and against the banned catalogue.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { BannedCatalogue, Substance } from '../care/catalogue.js';
import { fold } from '../care/normalize.js';

export const MARKETS = ['vn', 'codex', 'eu'] as const;
export type Market = (typeof MARKETS)[number];

const Source = z.object({ title: z.string(), article: z.string(), date: z.string(), url: z.string().url() });
const Limit = z.object({
  analyte: z.string(),
  aliases: z.array(z.string()),
  market: z.enum(MARKETS),
  commodities: z.array(z.string()).min(1),
  limit_mg_kg: z.number().positive(),
  kind: z.enum(['mrl', 'rpa', 'ml']),
  source: Source,
});
const MarketDef = z.object({
  name_vi: z.string(),
  name_en: z.string(),
  role: z.enum(['domestic', 'reference', 'export']),
  banned_sources: z.array(z.string()),
  pesticide_default: z.object({ limit_mg_kg: z.number().positive(), source: Source }).optional(),
});
const MrlFile = z.object({ version: z.string(), markets: z.record(z.enum(MARKETS), MarketDef), limits: z.array(Limit) });

export type LimitRow = z.infer<typeof Limit>;
export type MarketDef = z.infer<typeof MarketDef>;
export type LimitSource = z.infer<typeof Source>;

export interface MrlTable {
  markets: Record<Market, MarketDef>;
  limits: LimitRow[];
}

export async function loadMrlTable(path: string): Promise<MrlTable> {
  const file = MrlFile.parse(JSON.parse(await readFile(path, 'utf8')));
  return { markets: file.markets as Record<Market, MarketDef>, limits: file.limits };
}

/** A measured analyte, resolved: its id, display name and catalogue row when it has one. */
export interface ResolvedAnalyte {
  id: string;
  name: string;
  substance: Substance | null;
  /** Contaminants (e.g. cadmium from soil) are judged by their limits only, never as a banned product. */
  contaminant: boolean;
}

/** Resolves a lab's analyte text: the limits table's own names first, then the banned catalogue. */
export function resolveAnalyte(text: string, table: MrlTable, catalogue: BannedCatalogue | null): ResolvedAnalyte {
  const f = fold(text);
  const row = table.limits.find((l) => [l.analyte, ...l.aliases].some((a) => fold(a) === f));
  const hit = catalogue?.lookup(text)[0] ?? null;
  if (row) {
    const substance = catalogue?.substances.find((s) => s.id === row.analyte) ?? null;
    return { id: row.analyte, name: substance?.name ?? text.trim(), substance, contaminant: row.kind === 'ml' };
  }
  if (hit) return { id: hit.id, name: hit.name, substance: hit, contaminant: false };
  return { id: f.replace(/ /g, '_'), name: text.trim(), substance: null, contaminant: false };
}

const commodityMatches = (row: LimitRow, commodity: string) =>
  row.commodities.some((c) => c === '*' || (commodity !== '' && fold(c) === fold(commodity)));

/** What a market says about one analyte in one commodity. */
export type MarketRule =
  | { kind: 'limit'; limit_mg_kg: number; limit_kind: 'mrl' | 'rpa' | 'ml'; source: LimitSource }
  | { kind: 'banned'; source: LimitSource }
  | { kind: 'none' };

/**
 * The rule of `market`: a listed limit (strictest when several match), else "banned" when the
 * substance is on one of the market's banned lists, else the EU pesticide default, else none.
 */
export function marketRule(table: MrlTable, market: Market, a: ResolvedAnalyte, commodity: string): MarketRule {
  const rows = table.limits.filter((l) => l.market === market && l.analyte === a.id && commodityMatches(l, commodity));
  if (rows.length) {
    const r = rows.reduce((x, y) => (y.limit_mg_kg < x.limit_mg_kg ? y : x));
    return { kind: 'limit', limit_mg_kg: r.limit_mg_kg, limit_kind: r.kind, source: r.source };
  }
  if (a.contaminant || !a.substance) return { kind: 'none' };
  const def = table.markets[market];
  const listed = a.substance.sources.find((s) => def.banned_sources.includes(s.id));
  if (listed) return { kind: 'banned', source: { title: listed.title, article: listed.article, date: listed.date, url: listed.url } };
  if (def.pesticide_default && a.substance.scopes.includes('crop') && a.substance.category !== 'veterinary') {
    return { kind: 'limit', limit_mg_kg: def.pesticide_default.limit_mg_kg, limit_kind: 'mrl', source: def.pesticide_default.source };
  }
  return { kind: 'none' };
}
