/**
 * The care match result of spec section 2, decided in one pure function so every rule can be
 * tested on its own:
 * - `reason` is present only for an empty list (`ocr_unavailable`, `ocr_no_text`, `no_match`,
 *   `no_input`, `banned_not_in_catalog`), plus `ambiguous` for a non-empty list in doubtful order;
 * - `banned` non-empty means DANGER whatever the rest says (the message leads with it);
 * - `banned_check`: `ok` (catalogue consulted), `unavailable` (catalogue not loaded),
 *   `not_run` (no text to check);
 * - `banned_not_in_catalog` only with a non-empty `banned` and `banned_check` `ok`;
 * - `message`: one sentence of every true condition, most dangerous first.
 */
import type { Lang } from '../messages.js';
import type { BannedCatalogue, BannedHit, ProductHit, ProductStore } from './catalogue.js';
import { matchMessage } from './match-message.js';
import type { BannedCheck, MatchCandidate, MatchReason } from './match-vocabulary.js';

export { BANNED_CHECKS, MATCH_REASONS, type BannedCheck, type MatchCandidate, type MatchReason } from './match-vocabulary.js';

/** What OCR made of the photo, when a photo was the only input. */
export type OcrOutcome = { state: 'unavailable' } | { state: 'read'; text: string };

export interface MatchInput {
  text?: string;
  /** Present only when a photo was sent and no text was: what OCR read. */
  ocr?: OcrOutcome;
  catalogue: BannedCatalogue | null;
  products: ProductStore | null;
  lang: Lang;
}

export interface MatchResult {
  candidates: MatchCandidate[];
  reason?: MatchReason;
  banned: BannedHit[];
  banned_check: BannedCheck;
  message: string;
  /** The text that was matched (typed, or read from the photo). */
  text_read?: string;
}

const candidateOf = (h: ProductHit): MatchCandidate => ({
  id: h.product.id,
  name: h.product.name,
  active_ingredients: h.product.active_ingredients,
  scope: h.product.scope,
  category: h.product.category,
  matched_by: h.by,
  intervals: h.product.intervals,
  source: h.product.source,
});

/** Two products named outright, or several found only through a shared ingredient: order unreliable. */
function isAmbiguous(hits: ProductHit[]): boolean {
  if (hits.length < 2) return false;
  const named = hits.filter((h) => h.by === 'name').length;
  return named !== 1;
}

/** The text to match, or the empty-list reason that stops before matching. */
function textOrReason(input: MatchInput): { text: string } | { reason: MatchReason } {
  const typed = input.text?.trim();
  if (typed) return { text: typed };
  if (!input.ocr) return { reason: 'no_input' };
  if (input.ocr.state === 'unavailable') return { reason: 'ocr_unavailable' };
  const read = input.ocr.text.trim();
  return read && /[\p{L}\p{N}]/u.test(read) ? { text: read } : { reason: 'ocr_no_text' };
}

/** Decides the whole care match result for one request. */
export function decideMatch(input: MatchInput): MatchResult {
  const t = textOrReason(input);
  if ('reason' in t) {
    const r = { candidates: [], reason: t.reason, banned: [], banned_check: 'not_run' as const };
    return { ...r, message: matchMessage(r, input.lang) };
  }
  const banned = input.catalogue ? input.catalogue.lookup(t.text) : [];
  const banned_check: BannedCheck = input.catalogue ? 'ok' : 'unavailable';
  const hits = input.products ? input.products.lookup(t.text) : [];
  const candidates = hits.map(candidateOf);
  let reason: MatchReason | undefined;
  if (candidates.length === 0) reason = banned.length > 0 && banned_check === 'ok' ? 'banned_not_in_catalog' : 'no_match';
  else if (isAmbiguous(hits)) reason = 'ambiguous';
  const r = { candidates, ...(reason ? { reason } : {}), banned, banned_check, text_read: t.text };
  return { ...r, message: matchMessage(r, input.lang) };
}
