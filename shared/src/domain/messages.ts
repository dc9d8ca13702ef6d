import { hardeningMessages } from './messages/hardening.js';
import { evidenceMessages } from './messages/evidence.js';
import { recognitionMessages } from './messages/recognition.js';
import { animalMessages } from './messages/animal.js';
import { fruitMessages } from './messages/fruit.js';
import { fruitPublicMessages } from './messages/fruit-public.js';
import { careMessages } from './messages/care.js';
import { populationMessages } from './messages/population.js';
import { opsMessages } from './messages/ops.js';
import { datasciMessages } from './messages/datasci.js';
import { archiveMessages } from './messages/archive.js';
import { accountsMessages } from './messages/accounts.js';
import { abuseLimitMessages } from './messages/abuse-limits.js';
import { surveyMessages } from './messages/survey.js';
import { fieldMessages } from './messages/field.js';
import { learningMessages } from './messages/learning.js';

/**
 * The one message catalogue. Every error body the service sends is rendered from here:
 * Vietnamese by default (the contract's language), English when the client asks for it.
 * Placeholders are written `{name}` and filled from the error's params.
 */
export const messages = {
  validation_failed: {
    vi: 'Trường "{field}" bị thiếu hoặc sai kiểu: {reason}.',
    en: 'Field "{field}" is missing or has the wrong type: {reason}.',
  },
  invalid_json: {
    vi: 'Nội dung yêu cầu không phải JSON hợp lệ.',
    en: 'The request body is not valid JSON.',
  },
  route_not_found: { vi: 'Không có đường dẫn này.', en: 'No such route.' },
  not_found: { vi: 'Không tìm thấy.', en: 'Not found.' },
  pooling_off: {
    vi: 'Hiệu chỉnh gộp từ câu trả lời của mọi chủ đang tắt trên máy chủ này (CALIBRATION_POOLING=false).',
    en: "The calibration pooled from every owner's answers is turned off on this server (CALIBRATION_POOLING=false).",
  },
  calibration_not_serving: {
    vi: 'Chỉ có thể hoàn tác phiên bản hiệu chỉnh đang được dùng.',
    en: 'Only the calibration version that is serving can be rolled back.',
  },
  unauthorized: {
    vi: 'Bạn chưa đăng nhập hoặc phiên đã hết hạn. Hãy đăng nhập lại.',
    en: 'You are not signed in or your session has expired. Please sign in again.',
  },
  forbidden: { vi: 'Bạn không có quyền với đối tượng này.', en: 'You have no rights over this object.' },
  admin_only: { vi: 'Chỉ quản trị viên được dùng chức năng này.', en: 'Only administrators may use this.' },
  payload_too_large: {
    vi: 'Tệp quá lớn: giới hạn là {limit_mb} MB. Hãy nén lại rồi gửi lại.',
    en: 'File too large: the limit is {limit_mb} MB. Compress it and send it again.',
  },
  too_many_files: { vi: 'Quá nhiều tệp trong một yêu cầu.', en: 'Too many files in one request.' },
  rate_limited: {
    vi: 'Bạn gửi quá nhanh. Hãy đợi {retry_after} giây rồi thử lại.',
    en: 'Too many requests. Wait {retry_after} seconds and try again.',
  },
  internal: {
    vi: 'Máy chủ gặp lỗi. Hãy thử lại sau.',
    en: 'The server hit an error. Please try again later.',
  },
  username_invalid: {
    vi: 'Tên đăng nhập phải dài 3 đến 32 ký tự, chỉ gồm chữ thường, chữ số, dấu chấm và gạch dưới, bắt đầu và kết thúc bằng chữ hoặc số, không có hai dấu liền nhau.',
    en: 'The username must be 3 to 32 characters of lowercase letters, digits, dots and underscores, start and end with a letter or digit, and have no two separators in a row.',
  },
  username_taken: { vi: 'Tên đăng nhập đã có người dùng.', en: 'That username is already taken.' },
  password_too_short: {
    vi: 'Mật khẩu phải có ít nhất 10 ký tự.',
    en: 'The password must be at least 10 characters long.',
  },
  password_too_simple: {
    vi: 'Mật khẩu phải có ít nhất hai loại ký tự (chữ thường, chữ hoa, chữ số, ký hiệu).',
    en: 'The password must mix at least two character classes (lowercase, uppercase, digits, symbols).',
  },
  password_common: {
    vi: 'Mật khẩu này quá phổ biến và dễ bị đoán. Hãy chọn mật khẩu khác.',
    en: 'This password is too common and easy to guess. Choose another one.',
  },
  invalid_credentials: {
    vi: 'Tên đăng nhập hoặc mật khẩu không đúng.',
    en: 'Wrong username or password.',
  },
  signup_closed: { vi: 'Hiện không mở đăng ký tài khoản mới.', en: 'Sign-up is closed.' },
  did_challenge_invalid: {
    vi: 'Mã thử thách không hợp lệ, đã dùng hoặc đã hết hạn. Hãy xin mã mới.',
    en: 'The challenge is invalid, already used or expired. Request a new one.',
  },
  did_signature_invalid: {
    vi: 'Chữ ký không khớp với khóa định danh.',
    en: 'The signature does not match the identity key.',
  },
  feedback_empty: { vi: 'Nội dung góp ý không được để trống.', en: 'The feedback note must not be empty.' },
  file_missing: {
    vi: 'Chưa gửi tệp nào trong trường "{field}".',
    en: 'No file was sent in field "{field}".',
  },
  file_empty: { vi: 'Tệp "{filename}" rỗng (0 byte).', en: 'File "{filename}" is empty (0 bytes).' },
  file_wrong_type: {
    vi: 'Tệp "{filename}" không phải {expected} được hỗ trợ.',
    en: 'File "{filename}" is not a supported {expected}.',
  },
  image_undecodable: {
    vi: 'Không đọc được ảnh "{filename}": tệp hỏng, bị cắt cụt hoặc không phải ảnh.',
    en: 'Image "{filename}" cannot be decoded: it is damaged, truncated or not an image.',
  },
  image_unusable: {
    vi: 'Ảnh "{filename}" không dùng được để nhận dạng: {reasons}. Hãy chụp lại.',
    en: 'Image "{filename}" cannot be used for identification: {reasons}. Please retake it.',
  },
  video_undecodable: {
    vi: 'Không đọc được video: tệp hỏng hoặc không có khung hình dùng được.',
    en: 'The video cannot be decoded: it is damaged or has no usable frames.',
  },
  activity_unowned_skipped: {
    vi: 'Đã bỏ qua {count} sự kiện không gắn với tài khoản nào.',
    en: '{count} events with no owner were skipped.',
  },
  code_unknown: {
    vi: 'Không tìm thấy mã truy xuất này.',
    en: 'This traceability code was not found.',
  },
  scan_token_invalid: {
    vi: 'Mã quét không hợp lệ, đã dùng, đã hết hạn hoặc không thuộc tài khoản này. Hãy chụp và quét lại.',
    en: 'The scan token is invalid, already used, expired or not yours. Scan again.',
  },
  scan_species_not_offered: {
    vi: 'Loài "{species}" không nằm trong danh sách gợi ý của lần quét này. Hãy chọn một loài trong danh sách.',
    en: 'Species "{species}" is not among this scan\'s suggestions. Pick one from the list.',
  },
  rename_empty: {
    vi: 'Tên mới không còn ký tự nào sau khi lọc. Hãy nhập tên khác.',
    en: 'The new name is empty once cleaned. Enter another name.',
  },
  grant_self: {
    vi: 'Không thể chia sẻ quyền cho chính tài khoản của bạn.',
    en: 'You cannot share access with your own account.',
  },
  entity_no_owner: {
    vi: 'Đối tượng này chưa được đăng ký nên chưa có chủ; không thể ghi sự kiện cho nó.',
    en: 'This entity is not enrolled and has no owner, so no event can be recorded for it.',
  },
  evidence_not_anchored: {
    vi: 'Chuỗi sự kiện của cây này chưa được neo. Hãy neo trước (POST .../event/<event_id>/anchor) rồi xuất lại.',
    en: "This tree's timeline is not anchored yet. Anchor it first (POST .../event/<event_id>/anchor), then export again.",
  },
  ...hardeningMessages,
  ...evidenceMessages,
  ...recognitionMessages,
  ...animalMessages,
  ...fruitMessages,
  ...careMessages,
  ...populationMessages,
  ...opsMessages,
  ...datasciMessages,
  ...archiveMessages,
  ...accountsMessages,
  ...abuseLimitMessages,
  ...surveyMessages,
  ...fieldMessages,
  ...learningMessages,
  ...fruitPublicMessages,
} as const satisfies Record<string, { vi: string; en: string }>;

export type MessageCode = keyof typeof messages;
export type Lang = 'vi' | 'en';

const isCode = (c: string): c is MessageCode => c in messages;

/**
 * A placeholder's value as words: quality reason codes (`reasons`: `too_blurred, too_dark`) and an
 * expected media type (`expected`) read from the catalogue, so a sentence stored with its codes (a
 * batch row, a survey, an error) is in one language wherever it is rendered; other values as given.
 */
function paramText(key: string, value: unknown, lang: Lang): string {
  const media = `media_${String(value)}`;
  if (key === 'expected' && isCode(media)) return renderMessage(media, lang);
  if (key !== 'reasons' || (typeof value !== 'string' && !Array.isArray(value))) return String(value ?? '');
  const codes = (Array.isArray(value) ? value.map(String) : value.split(',')).map((r) => r.trim()).filter(Boolean);
  return codes
    .map((r) => {
      const words = `quality_${r}`;
      return isCode(words) ? renderMessage(words, lang) : r;
    })
    .join(', ');
}

/** Render a catalogue message in the requested language, filling `{name}` placeholders (codes as words: paramText). */
export function renderMessage(code: MessageCode, lang: Lang, params: Record<string, unknown> = {}): string {
  const template: string = messages[code][lang];
  return template.replace(/\{(\w+)\}/g, (_, k: string) => paramText(k, params[k], lang));
}

/**
 * Pick the language from an Accept-Language header (RFC 9110 q-values): the supported language
 * with the highest q wins, ties going to the earlier entry; nothing supported means Vietnamese.
 * `fr, en;q=0.5` is English, because English is the best language the client accepts that we have.
 */
export function pickLang(acceptLanguage: string | undefined): Lang {
  if (!acceptLanguage) return 'vi';
  let best: { lang: Lang; q: number } | null = null;
  for (const part of acceptLanguage.split(',')) {
    const [tag = '', ...attrs] = part.trim().toLowerCase().split(';');
    const qAttr = attrs.map((a) => a.trim()).find((a) => a.startsWith('q='));
    const q = qAttr ? Number(qAttr.slice(2)) : 1;
    if (!Number.isFinite(q) || q <= 0) continue;
    const lang: Lang | null = tag.startsWith('en') ? 'en' : tag.startsWith('vi') ? 'vi' : null;
    if (lang && (!best || q > best.q)) best = { lang, q };
  }
  return best?.lang ?? 'vi';
}
