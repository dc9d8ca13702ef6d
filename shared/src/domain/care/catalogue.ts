/**
 * The banned/restricted active-ingredient catalogue and the registered-product store, both
 * shipped as data (shared/data/care/*.json), and the one lookup every care route uses: fold the
 * text, then look for each substance's name, synonyms, Vietnamese spellings, trade names and CAS
 * numbers as whole-token sequences (with a small OCR tolerance for long names).
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { findTerm, fold, tokens } from './normalize.js';

export const SCOPES = ['crop', 'livestock', 'aquaculture'] as const;
export type Scope = (typeof SCOPES)[number];
export const SEVERITIES = ['banned', 'restricted'] as const;
export type Severity = (typeof SEVERITIES)[number];

const SourceRef = z.object({
  id: z.string(),
  severity: z.enum(SEVERITIES),
  title: z.string(),
  article: z.string(),
  date: z.string(),
  url: z.string().url(),
});
const Substance = z.object({
  id: z.string(),
  name: z.string(),
  cas: z.array(z.string()),
  synonyms: z.array(z.string()),
  vi_names: z.array(z.string()),
  trade_names: z.array(z.string()),
  scopes: z.array(z.enum(SCOPES)).min(1),
  category: z.string(),
  severity: z.enum(SEVERITIES),
  sources: z.array(SourceRef).min(1),
  note: z.string().optional(),
});
const BannedFile = z.object({ version: z.string(), compiled: z.string(), substances: z.array(Substance).min(1) });
const Interval = z.object({
  kind: z.enum(['withdrawal', 'pre_harvest']),
  target: z.string(),
  use: z.string(),
  days: z.number().int().min(0),
});
const Product = z.object({
  id: z.string(),
  name: z.string(),
  active_ingredients: z.array(z.string()).min(1),
  scope: z.enum(SCOPES),
  category: z.string(),
  intervals: z.array(Interval).min(1),
  source: z.object({ title: z.string(), article: z.string(), url: z.string().url(), note: z.string().optional() }),
});
const ProductsFile = z.object({ version: z.string(), compiled: z.string(), products: z.array(Product).min(1) });

export type Substance = z.infer<typeof Substance>;
export type Product = z.infer<typeof Product>;
export type Interval = z.infer<typeof Interval>;

/** One catalogue row found in a text, with the words that matched. */
export interface BannedHit extends Substance {
  matched: string;
}

interface Term {
  folded: string;
  /** CAS numbers and very short names never tolerate an edit. */
  exact: boolean;
}

function termsOf(s: Substance): Term[] {
  // The name also without its parenthesis: "Lindane (gamma-HCH)" must match "Lindane".
  const bare = s.name.replace(/\(.*?\)/g, ' ');
  const names = [s.name, bare, ...s.synonyms, ...s.vi_names, ...s.trade_names].map((n) => ({ folded: fold(n), exact: false }));
  const cas = s.cas.map((n) => ({ folded: fold(n), exact: true }));
  const seen = new Set<string>();
  return [...names, ...cas].filter((t) => t.folded && !seen.has(t.folded) && seen.add(t.folded));
}

function firstHit(textTokens: string[], terms: Term[]): string | null {
  for (const t of terms) {
    const hit = t.exact ? (` ${textTokens.join(' ')} `.includes(` ${t.folded} `) ? t.folded : null) : findTerm(textTokens, t.folded);
    if (hit) return hit;
  }
  return null;
}

/** The loaded catalogue with its compiled search terms. */
export interface BannedCatalogue {
  version: string;
  substances: Substance[];
  /** Substances named in `text`, most severe first, each once. */
  lookup(text: string): BannedHit[];
}

/** Builds a catalogue from parsed file content (throws on a malformed file). */
export function buildCatalogue(raw: unknown): BannedCatalogue {
  const file = BannedFile.parse(raw);
  const compiled = file.substances.map((s) => ({ s, terms: termsOf(s) }));
  return {
    version: file.version,
    substances: file.substances,
    lookup(text) {
      const tk = tokens(text);
      if (tk.length === 0) return [];
      const hits: BannedHit[] = [];
      for (const { s, terms } of compiled) {
        const matched = firstHit(tk, terms);
        if (matched) hits.push({ ...s, matched });
      }
      return hits.sort((a, b) => Number(b.severity === 'banned') - Number(a.severity === 'banned'));
    },
  };
}

/** Reads the catalogue file; any failure (missing, unreadable, malformed) is returned as null. */
export async function loadCatalogue(path: string): Promise<BannedCatalogue | null> {
  try {
    return buildCatalogue(JSON.parse(await readFile(path, 'utf8')));
  } catch {
    return null;
  }
}

/** A product of the store found in a text, and how strongly. */
export interface ProductHit {
  product: Product;
  /** `name`: the product's own name was read; `ingredient`: only an active ingredient was. */
  by: 'name' | 'ingredient';
}

/** The registered-product store. */
export interface ProductStore {
  products: Product[];
  find(id: string): Product | undefined;
  /** Products named in `text`: by name first, then by active ingredient only. */
  lookup(text: string): ProductHit[];
}

/** The brand part of a product name, e.g. "Draxxin" of "Draxxin (tulathromycin injection)". */
const brandOf = (name: string) => fold(name.replace(/\(.*\)/, ''));

/** The whole brand, and its first word alone when distinctive enough ("Baytril" for "Baytril 100"). */
function brandTerms(name: string): Term[] {
  const full = brandOf(name);
  const first = full.split(' ')[0]!;
  return [{ folded: full, exact: false }, ...(first !== full && first.length >= 5 ? [{ folded: first, exact: false }] : [])];
}

export function buildProductStore(raw: unknown): ProductStore {
  const file = ProductsFile.parse(raw);
  const compiled = file.products.map((p) => ({
    p,
    brand: brandTerms(p.name),
    ingredients: p.active_ingredients.map((a) => ({ folded: fold(a), exact: false })),
  }));
  return {
    products: file.products,
    find: (id) => file.products.find((p) => p.id === id),
    lookup(text) {
      const tk = tokens(text);
      const byName: ProductHit[] = [];
      const byIngredient: ProductHit[] = [];
      for (const { p, brand, ingredients } of compiled) {
        if (firstHit(tk, brand)) byName.push({ product: p, by: 'name' });
        else if (firstHit(tk, ingredients)) byIngredient.push({ product: p, by: 'ingredient' });
      }
      return [...byName, ...byIngredient];
    },
  };
}

export async function loadProductStore(path: string): Promise<ProductStore | null> {
  try {
    return buildProductStore(JSON.parse(await readFile(path, 'utf8')));
  } catch {
    return null;
  }
}
