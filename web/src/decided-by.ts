import { h } from './dom.js';
import { currentLang } from './i18n.js';

/**
 * Under an identify answer, one sentence saying which calibration decided it and how often it may
 * be wrong: a person told "not sure" should learn why, and that their own confirmed answers are
 * what will change it. Kept apart from i18n.ts's table, which several screens edit at once.
 */
const TEXT = {
  owner: [
    'Kết luận theo hiệu chuẩn riêng của bạn, học từ {n} câu hỏi của chính bạn.',
    'Decided by your own calibration, learned from {n} of your own queries.',
  ],
  pooled: [
    'Kết luận theo hiệu chuẩn chung, học từ các câu trả lời đã được những chủ khác xác nhận (không chia sẻ ảnh, tên hay mã nào).',
    'Decided by the shared calibration, learned from answers other owners confirmed (no photo, name or id is shared).',
  ],
  shipped: [
    'Kết luận theo hiệu chuẩn có sẵn cho loại này, đo trên các cá thể của những đàn khác.',
    "Decided by this kind's built-in calibration, measured on individuals of other herds.",
  ],
  defaults: [
    'Chưa có hiệu chuẩn nào đủ bằng chứng cho loại này, nên hệ thống thận trọng và hiếm khi kết luận là khớp.',
    'No calibration has enough evidence for this kind yet, so the system is cautious and rarely says it is a match.',
  ],
  bound: [' Tỉ lệ nhận nhầm không quá {p}%.', ' It names the wrong one at most {p}% of the time.'],
  grow: [
    ' Mỗi lần bạn chọn đúng cá thể, hiệu chuẩn riêng của bạn có thêm bằng chứng; nó cần khoảng 300 câu trả lời.',
    ' Each time you pick the right one, your own calibration gains evidence; it needs about 300 answers.',
  ],
} as const satisfies Record<string, readonly [string, string]>;

/** The answer's `calibration` block, as far as this sentence reads it. */
export interface AnswerCalibration {
  source: 'owner' | 'pooled' | 'kind_default';
  samples?: number | null;
  false_match_bound?: number | null;
}

const say = (key: keyof typeof TEXT, params: Record<string, string | number> = {}) =>
  TEXT[key][currentLang() === 'vi' ? 0 : 1].replace(/\{(\w+)\}/g, (_, k: string) => String(params[k] ?? ''));

/** The sentence for `cal`, in the app's language. */
export function decidedBySentence(cal: AnswerCalibration): string {
  const bound = cal.false_match_bound;
  const first =
    cal.source === 'owner'
      ? say('owner', { n: cal.samples ?? 0 })
      : cal.source === 'pooled'
        ? say('pooled')
        : say(bound == null ? 'defaults' : 'shipped');
  const limit = bound == null ? '' : say('bound', { p: (Math.ceil(bound * 1000) / 10).toLocaleString(currentLang()) });
  return first + limit + (cal.source === 'owner' ? '' : say('grow'));
}

/** The paragraph under a verdict, or nothing when the answer carries no calibration. */
export function decidedBy(cal: AnswerCalibration | undefined): HTMLElement | null {
  return cal ? h('p', { class: 'decided-by hint', 'data-source': cal.source }, decidedBySentence(cal)) : null;
}
