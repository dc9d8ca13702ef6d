import { z } from 'zod';
import { SCOPES, SEVERITIES } from '../../../shared/src/domain/care/catalogue.js';
import { BANNED_CHECKS, MATCH_REASONS } from '../../../shared/src/domain/care/match-result.js';
import { CARE_TARGETS } from '../services/care-log.service.js';
import { Ok } from './schemas.js';

const SourceOut = z.object({
  id: z.string(),
  severity: z.enum(SEVERITIES),
  title: z.string(),
  article: z.string(),
  date: z.string(),
  url: z.string(),
});
export const SubstanceOut = z.object({
  id: z.string(),
  name: z.string(),
  cas: z.array(z.string()),
  synonyms: z.array(z.string()),
  vi_names: z.array(z.string()).describe('Vietnamese spellings; matching ignores diacritics'),
  trade_names: z.array(z.string()),
  scopes: z.array(z.enum(SCOPES)),
  category: z.string(),
  severity: z.enum(SEVERITIES).describe('the most severe of its sources'),
  sources: z.array(SourceOut).min(1).describe('the original regulatory texts: title, article or annex, date, URL'),
  note: z.string().optional(),
  matched: z.string().optional().describe('the (folded) words of the text that matched, when found in a text'),
});
const IntervalOut = z.object({ kind: z.enum(['withdrawal', 'pre_harvest']), target: z.string(), use: z.string(), days: z.number().int() });
const ProductSource = z.object({ title: z.string(), article: z.string(), url: z.string(), note: z.string().optional() });
export const ProductOut = z.object({
  id: z.string(),
  name: z.string(),
  active_ingredients: z.array(z.string()),
  scope: z.enum(SCOPES),
  category: z.string(),
  intervals: z.array(IntervalOut),
  source: ProductSource,
});
export const MatchOut = Ok.extend({
  candidates: z
    .array(ProductOut.extend({ matched_by: z.enum(['name', 'ingredient']) }))
    .describe('product candidates, no score; order is reliable unless reason is `ambiguous`'),
  reason: z
    .enum(MATCH_REASONS)
    .optional()
    .describe('present only when candidates is empty, or `ambiguous` for a non-empty list whose order is unreliable'),
  banned: z
    .array(SubstanceOut)
    .describe('banned or restricted ingredients found: non-empty means DANGER regardless of reason or candidates'),
  banned_check: z
    .enum(BANNED_CHECKS)
    .describe(
      '`ok`: catalogue consulted (empty banned = clean); `unavailable`: catalogue not loaded; `not_run`: no text to check. Test for equality with `ok`: any other value, including future ones, means not yet checked',
    ),
  message: z.string().describe('one complete sentence of every true condition, most dangerous first; show it verbatim'),
  text_read: z.string().optional().describe('the text that was matched: typed, or read from the photo'),
});
export const MatchForm = z.object({
  text: z.string().max(4000).optional().describe('product name or label text; when present the photo is not read'),
});
export const BannedQuery = z.object({
  q: z
    .string()
    .max(4000)
    .optional()
    .describe('text to look up (names, synonyms, trade names, CAS numbers, Vietnamese with or without diacritics)'),
  scope: z.enum(SCOPES).optional(),
  severity: z.enum(SEVERITIES).optional(),
});
export const BannedOut = Ok.extend({
  available: z.boolean().describe('false when the catalogue file could not be loaded (lists are then empty)'),
  version: z.string().nullable(),
  count: z.number().int(),
  substances: z.array(SubstanceOut),
  match: MatchOut.omit({ ok: true }).optional().describe('with a non-empty q: the care match answer for that text (nothing is written)'),
});
export const ProductsQuery = z.object({
  scope: z.enum(SCOPES).optional(),
  category: z.string().max(100).optional().describe('e.g. veterinary, pesticide'),
});
export const ProductsOut = Ok.extend({ available: z.boolean(), count: z.number().int(), products: z.array(ProductOut) });

const Target = {
  target_type: z.enum(CARE_TARGETS).describe('tree, fruit (a fruit lot) or animal: one of your own or granted individuals'),
  target_id: z.string().min(1).max(100),
};
export const TargetQuery = z.object(Target);
export const LogForm = z.object({
  ...Target,
  action: z.string().max(200).optional().describe('what was done, e.g. spray, treat, feed'),
  product_id: z.string().max(100).optional().describe('a product of GET /api/care/products: its interval sets the withdrawal'),
  product_name: z.string().max(300).optional().describe('free product name when it is not in the store'),
  dose: z.string().max(200).optional(),
  note: z.string().max(2000).optional(),
  applied_at: z.string().datetime({ offset: true }).optional().describe('when it was applied (ISO 8601, default now, not in the future)'),
  interval_days: z.coerce
    .number()
    .int()
    .min(0)
    .max(3650)
    .optional()
    .describe("withdrawal or pre-harvest days from the label, for a product not in the store (the longer of this and the store's wins)"),
});
const WithdrawalOut = z.object({
  product_id: z.string().nullable(),
  product_name: z.string(),
  kind: z.enum(['withdrawal', 'pre_harvest']),
  target: z.string(),
  use: z.string(),
  interval_days: z.number().int(),
  source: z.object({ title: z.string(), article: z.string(), url: z.string().nullable(), note: z.string().optional() }),
  until: z.string(),
});
const BannedRef = z.object({ id: z.string(), name: z.string(), severity: z.string() });
export const CareEntryOut = z.object({
  id: z.string().uuid(),
  target_type: z.enum(CARE_TARGETS),
  target_id: z.string(),
  author_role: z.enum(['owner', 'contributor']),
  action: z.string().nullable(),
  product_id: z.string().nullable(),
  product_name: z.string().nullable(),
  dose: z.string().nullable(),
  note: z.string().nullable(),
  photo_cid: z.string().nullable().describe('CIDv1 of the packaging photo in the content-addressed store'),
  applied_at: z.string().nullable(),
  withdrawal: WithdrawalOut.nullable(),
  withdrawal_until: z.string().nullable(),
  banned: z.array(BannedRef).describe('banned or restricted ingredients named by the product or note'),
  created_at: z.string(),
});
export const LogOut = Ok.extend({ entry: CareEntryOut, banned_check: z.enum(['ok', 'unavailable']) });
export const EventsOut = Ok.extend({
  target_type: z.enum(CARE_TARGETS),
  target_id: z.string(),
  count: z.number().int(),
  events: z.array(CareEntryOut),
});
export const WithdrawalStatusOut = Ok.extend({
  target_type: z.enum(CARE_TARGETS),
  target_id: z.string(),
  blocked: z.boolean().describe('true: harvest or sale is blocked now'),
  until: z.string().nullable().describe('when the last running withdrawal ends'),
  blocking: z
    .array(WithdrawalOut.extend({ care_id: z.string().uuid() }))
    .describe('which product, interval and source block it, longest first'),
});
export const DeleteForm = z.object({ id: z.string().min(1).max(100).describe('the care entry id') });
export const DeleteOut = Ok.extend({ deleted: z.string().uuid(), deleted_at: z.string() });
