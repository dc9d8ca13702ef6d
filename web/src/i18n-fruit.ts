import { currentLang } from './i18n.js';

/**
 * Texts of named fruit and of deciding batch rows in the batch table (issue 39 items 5 and 6).
 * Kept apart from i18n.ts's table, which several screens edit at once; read with `tf`.
 */
const FRUIT_TEXT = {
  fruit_short: ['Quả {code}', 'Fruit {code}'],
  fruit_name_hint: ['Tên hoặc số trên nhãn, ví dụ "Táo hàng 3 số 12"', 'A name or the number on its label, e.g. "Apple row 3 no. 12"'],
  col_fruit: ['Quả', 'Fruit'],
  col_tree: ['Cây', 'Tree'],
  col_verdict: ['Kết luận', 'Verdict'],
  no_fruit: ['không có quả nào khớp', 'no fruit matched'],
  this_one: ['Đúng quả này', 'This one'],
  none_of_these: ['Không phải quả nào', 'None of these'],
  decide_hint: [
    'Hệ thống chưa chắc. Chọn đúng quả, hoặc bấm "Không phải quả nào"; lựa chọn của bạn giúp hệ thống học.',
    'The system is not sure. Pick the right fruit, or press "None of these"; your choice teaches the system.',
  ],
  decided_this: ['Bạn đã chọn quả này.', 'You decided it is this fruit.'],
  decided_none: ['Bạn đã chọn: không phải quả nào trong danh sách.', 'You decided: none of the listed fruit.'],
  fruit_public_hint: [
    'Khi công bố, người mua có thể tra quả này bằng ảnh mà không cần tài khoản.',
    'Once published, shoppers can look this fruit up by photo without an account.',
  ],
} as const satisfies Record<string, readonly [string, string]>;

export type FruitTextKey = keyof typeof FRUIT_TEXT;

/** The fruit text for `key` in the app's language, with `{name}` placeholders filled (as i18n.ts `t`). */
export function tf(key: FruitTextKey, params: Record<string, string | number> = {}): string {
  const s: string = FRUIT_TEXT[key][currentLang() === 'vi' ? 0 : 1];
  return s.replace(/\{(\w+)\}/g, (_, k: string) => String(params[k] ?? ''));
}

/** A fruit as a list or a table names it: its name, else its short code (never a bare UUID). */
export const fruitTitle = (f: { name?: string | null; short_code?: string | null; fruit_id?: string }) =>
  f.name || tf('fruit_short', { code: f.short_code ?? (f.fruit_id ?? '').replace(/-/g, '').slice(0, 8).toUpperCase() });
