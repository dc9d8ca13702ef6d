/**
 * The one `message` sentence of a care match result (spec section 2, rule 5: clients show it
 * verbatim). Each true condition contributes one clause; clauses are ordered by decreasing
 * danger (banned ingredients, then an unchecked catalogue, then why the list is empty or
 * doubtful, then the clean outcome) and joined into a single sentence.
 */
import type { Lang } from '../messages.js';
import type { BannedHit } from './catalogue.js';
import type { BannedCheck, MatchCandidate, MatchReason } from './match-vocabulary.js';

type Clauses = Record<Lang, string>;

const REASON: Record<MatchReason, Clauses> = {
  ocr_unavailable: {
    vi: 'không đọc được chữ trên ảnh vì máy chủ chưa có chức năng nhận dạng chữ, hãy gõ tên sản phẩm',
    en: 'the photo could not be read because text recognition is not available on this server, so please type the product name',
  },
  ocr_no_text: {
    vi: 'không đọc được chữ nào trên ảnh, hãy chụp lại nhãn rõ hơn hoặc gõ tên sản phẩm',
    en: 'no text could be read from the photo, so please take a sharper photo of the label or type the product name',
  },
  no_input: { vi: 'chưa có tên sản phẩm hay ảnh nhãn nào được gửi', en: 'neither a product name nor a label photo was sent' },
  no_match: { vi: 'không tìm thấy sản phẩm phù hợp trong danh mục sản phẩm', en: 'no matching product was found in the product store' },
  banned_not_in_catalog: {
    vi: 'sản phẩm này không có trong danh mục sản phẩm đã đăng ký',
    en: 'this product is not in the store of registered products',
  },
  ambiguous: {
    vi: 'có nhiều sản phẩm phù hợp nên thứ tự chưa chắc chắn, hãy đối chiếu tên trên bao bì',
    en: 'several products match and their order is uncertain, so compare the name on the package',
  },
};

const names = (b: BannedHit[]) => b.map((x) => x.name).join(', ');

function bannedClause(banned: BannedHit[]): Clauses {
  const strict = banned.filter((b) => b.severity === 'banned');
  const restricted = banned.filter((b) => b.severity === 'restricted');
  const vi = [
    strict.length ? `hoạt chất bị cấm (${names(strict)})` : '',
    restricted.length ? `hoạt chất bị hạn chế (${names(restricted)})` : '',
  ]
    .filter(Boolean)
    .join(' và ');
  const en = [
    strict.length ? `banned ingredients (${names(strict)})` : '',
    restricted.length ? `restricted ingredients (${names(restricted)})` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  return { vi: `NGUY HIỂM: có ${vi}, không được dùng`, en: `DANGER: it contains ${en} and must not be used` };
}

function outcomeClause(r: {
  candidates: MatchCandidate[];
  banned: BannedHit[];
  banned_check: BannedCheck;
  reason?: MatchReason;
}): Clauses[] {
  const out: Clauses[] = [];
  if (r.candidates.length > 0 && r.reason !== 'ambiguous') {
    const n = r.candidates[0]!.name;
    out.push({ vi: `sản phẩm phù hợp là ${n}`, en: `the matching product is ${n}` });
  }
  if (r.banned_check === 'ok' && r.banned.length === 0)
    out.push({ vi: 'không thấy hoạt chất bị cấm hay hạn chế', en: 'no banned or restricted ingredient was found' });
  return out;
}

/** Joins clauses into one sentence: capitalised first letter, "; " between, one full stop. */
function sentence(clauses: string[]): string {
  const s = clauses.join('; ');
  return s.charAt(0).toUpperCase() + s.slice(1) + '.';
}

/** The message for a decided result, in `lang`. */
export function matchMessage(
  r: { candidates: MatchCandidate[]; banned: BannedHit[]; banned_check: BannedCheck; reason?: MatchReason },
  lang: Lang,
): string {
  const clauses: Clauses[] = [];
  if (r.banned.length > 0) clauses.push(bannedClause(r.banned));
  if (r.banned_check === 'unavailable')
    clauses.push({
      vi: 'danh mục hoạt chất cấm tạm thời không kiểm tra được, nên chưa biết sản phẩm có hoạt chất cấm hay không',
      en: 'the banned-ingredient list could not be checked right now, so it is not known whether the product contains one',
    });
  if (r.banned_check === 'not_run')
    clauses.push({ vi: 'chưa kiểm tra được hoạt chất cấm', en: 'banned ingredients have not been checked' });
  if (r.reason) clauses.push(REASON[r.reason]);
  clauses.push(...outcomeClause(r));
  return sentence(clauses.map((c) => c[lang]));
}
