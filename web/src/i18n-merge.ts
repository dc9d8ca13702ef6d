import { currentLang } from './i18n.js';

/**
 * Texts of the duplicate warning, merging, un-merging and deleting an animal (issue 39 item 7):
 * each dialog is one whole sentence naming what will happen. Kept apart from i18n.ts's table,
 * which several screens edit at once; read with `tm`.
 */
const MERGE_TEXT = {
  dup_sentence: [
    'Những ảnh này giống {name}, một con bạn đã đăng ký. Nếu đúng là {name}, hãy thêm ảnh vào con đó; nếu không phải, hãy đăng ký một con mới.',
    'These photos look like {name}, an animal you already enrolled. If it is {name}, add the photos to it; if it is not, enrol a new animal.',
  ],
  dup_theirs: ['Ảnh đã có của {name}', 'Photos of {name} already enrolled'],
  dup_add: ['Đúng con này: thêm ảnh vào {name}', 'This one: add the photos to {name}'],
  dup_other: ['Con khác: đăng ký con mới', "It's a different one: enrol a new animal"],
  dup_added: ['Đã thêm ảnh. {n} ảnh mới giờ thuộc về {name}.', 'Photos added. The {n} new photo(s) now belong to {name}.'],
  merge_pick: [
    'Chọn con vật thật ra chính là {name} (cùng một con, đăng ký hai lần):',
    'Choose the animal that is really {name} (one animal, enrolled twice):',
  ],
  merge_choose: ['Chọn một con để gộp.', 'Choose an animal to merge.'],
  photos_n: ['{n} ảnh', '{n} photo(s)'],
  merge_sentence: [
    'Gộp {from} vào {into}: {n} ảnh của {from} sẽ chuyển sang {into}; có thể hoàn tác.',
    'Merge {from} into {into}: {n} photo(s) of {from} will move to {into}; this can be undone.',
  ],
  merges_title: ['Các lần gộp vào con này', 'Merges into this animal'],
  merge_line: ['{from} đã gộp vào {into} lúc {when} ({n} ảnh).', '{from} was merged into {into} on {when} ({n} photo(s)).'],
  unmerged_line: ['{from} đã được tách lại khỏi {into} lúc {when}.', '{from} was separated from {into} again on {when}.'],
  unmerge: ['Hoàn tác gộp', 'Undo the merge'],
  unmerge_sentence: [
    'Tách {from} khỏi {into}: {n} ảnh sẽ trở lại {from}, và cả hai con được nhận diện riêng như trước khi gộp.',
    'Separate {from} from {into}: {n} photo(s) go back to {from}, and both are identified separately, as before the merge.',
  ],
  unmerged_ok: [
    'Đã tách {from} khỏi {into}; cả hai con đều có lại ảnh của mình.',
    'Separated {from} from {into}; each has its own photos again.',
  ],
  delete_sentence: [
    'Xoá {name}: con này và {n} ảnh của nó sẽ rời mọi danh sách và không còn được nhận diện; việc này không hoàn tác được, nhưng lịch sử của nó vẫn được giữ.',
    'Delete {name}: this animal and its {n} photo(s) leave every list and are no longer identified; this cannot be undone, but its history is kept.',
  ],
  cancel: ['Thôi', 'Cancel'],
} as const satisfies Record<string, readonly [string, string]>;

export type MergeTextKey = keyof typeof MERGE_TEXT;

/** The text for `key` in the app's language, with `{name}` placeholders filled (as i18n.ts `t`). */
export function tm(key: MergeTextKey, params: Record<string, string | number> = {}): string {
  const s: string = MERGE_TEXT[key][currentLang() === 'vi' ? 0 : 1];
  return s.replace(/\{(\w+)\}/g, (_, k: string) => String(params[k] ?? ''));
}
