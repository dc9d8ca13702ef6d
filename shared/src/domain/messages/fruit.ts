/**
 * Catalogue messages for one area of the service, merged into the one catalogue in
 * `../messages.ts`. Kept per area so parallel work on different areas never edits the same lines.
 */
export const fruitMessages = {
  fruit_scan_token_invalid: {
    vi: 'Mã quét trái cây không đúng. Hãy chụp và quét lại.',
    en: 'This fruit scan token is not valid. Take the photo and scan again.',
  },
  fruit_scan_token_expired: {
    vi: 'Mã quét trái cây đã hết hạn. Hãy chụp và quét lại.',
    en: 'This fruit scan token has expired. Take the photo and scan again.',
  },
  fruit_scan_token_used: {
    vi: 'Mã quét trái cây này đã được dùng để chọn một quả. Hãy chụp và quét lại.',
    en: 'This fruit scan token has already been used to choose a fruit. Take the photo and scan again.',
  },
  fruit_scan_not_offered: {
    vi: 'Quả đã chọn không nằm trong danh sách của lần quét này; hãy chọn một quả trong danh sách.',
    en: 'The chosen fruit is not in the list this scan offered; choose one from the list.',
  },
  batch_too_many_photos: {
    vi: 'Lô ảnh có quá nhiều ảnh: tối đa {limit} ảnh mỗi lô.',
    en: 'The batch has too many photos: at most {limit} photos per batch.',
  },
  batch_archive_invalid: {
    vi: 'Tệp nén "{filename}" không phải tệp .zip đọc được.',
    en: 'The archive "{filename}" is not a readable .zip file.',
  },
  batch_file_too_large: {
    vi: 'Ảnh "{filename}" quá lớn: giới hạn là {limit_mb} MB mỗi ảnh.',
    en: 'Photo "{filename}" is too large: the limit is {limit_mb} MB per photo.',
  },
  batch_fruit_too_many_views: {
    vi: 'Quả "{fruit}" có {got} ảnh, nhiều hơn mức tối đa {max} ảnh cho một quả; quả này không được nhận dạng, các quả khác trong lô vẫn được xử lý.',
    en: 'Fruit "{fruit}" has {got} photos, more than the {max} allowed for one fruit; it was not identified, and the other fruit of the batch go on.',
  },
  batch_fruit_no_usable_view: {
    vi: 'Không ảnh nào trong {views} ảnh của quả "{fruit}" dùng được; lý do của từng ảnh nằm ở ảnh đó.',
    en: 'None of the {views} photos of fruit "{fruit}" could be used; each photo carries its own reason.',
  },
  batch_row_error: {
    vi: 'Không xử lý được "{filename}" sau nhiều lần thử; các quả khác trong lô vẫn được xử lý.',
    en: '"{filename}" could not be processed after several attempts; the other fruit of the batch go on.',
  },
} as const satisfies Record<string, { vi: string; en: string }>;
