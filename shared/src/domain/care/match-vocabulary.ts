/**
 * The words a care match answer is made of, shared by the decision (match-result.ts) and the
 * sentence it is read as (match-message.ts), which each need them and neither owns.
 */
import type { ProductHit } from './catalogue.js';

export const MATCH_REASONS = ['ocr_unavailable', 'ocr_no_text', 'no_match', 'no_input', 'ambiguous', 'banned_not_in_catalog'] as const;
export type MatchReason = (typeof MATCH_REASONS)[number];
export const BANNED_CHECKS = ['ok', 'unavailable', 'not_run'] as const;
export type BannedCheck = (typeof BANNED_CHECKS)[number];

export interface MatchCandidate {
  id: string;
  name: string;
  active_ingredients: string[];
  scope: string;
  category: string;
  matched_by: 'name' | 'ingredient';
  intervals: ProductHit['product']['intervals'];
  source: ProductHit['product']['source'];
}
