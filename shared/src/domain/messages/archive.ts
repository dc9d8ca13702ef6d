/**
 * Catalogue messages for hostile files: archives (zip bombs, unsafe entry names) and pixel caps,
 * merged into the one catalogue in `../messages.ts`.
 */
export const archiveMessages = {
  archive_too_many_entries: {
    vi: 'Tệp nén "{filename}" khai báo {got} mục: tối đa {max} mục được đọc.',
    en: 'The archive "{filename}" declares {got} entries: at most {max} are read.',
  },
  archive_inflated_too_large: {
    vi: 'Tệp nén "{filename}" giải nén ra hơn {limit_mb} MB: giới hạn là {limit_mb} MB cho cả tệp.',
    en: 'The archive "{filename}" inflates to more than {limit_mb} MB: the limit is {limit_mb} MB in all.',
  },
  archive_ratio_too_high: {
    vi: 'Mục "{entry}" trong tệp nén "{filename}" bị nén hơn {max}:1 như một quả bom nén, nên tệp nén bị từ chối.',
    en: 'Entry "{entry}" of the archive "{filename}" is compressed more than {max}:1, as a zip bomb is, so the archive is refused.',
  },
  archive_entry_size_mismatch: {
    vi: 'Mục "{entry}" trong tệp nén "{filename}" giải nén ra khác số byte tệp nén khai báo, nên tệp nén bị từ chối.',
    en: 'Entry "{entry}" of the archive "{filename}" inflates to a different number of bytes than the archive declares, so the archive is refused.',
  },
  archive_entry_unsafe_name: {
    vi: 'Mục "{filename}" trong tệp nén có tên không an toàn (đường dẫn tuyệt đối, "..", hoặc ký tự điều khiển) nên không được đọc.',
    en: 'Archive entry "{filename}" has an unsafe name (an absolute path, "..", or a control character), so it is not read.',
  },
  archive_entry_unreadable: {
    vi: 'Mục "{filename}" trong tệp nén không giải nén được (bị mã hoá, hỏng hoặc dùng kiểu nén không hỗ trợ).',
    en: 'Archive entry "{filename}" cannot be unpacked: it is encrypted, damaged or uses an unsupported compression method.',
  },
  image_too_many_pixels: {
    vi: 'Ảnh "{filename}" có {got} điểm ảnh, quá giới hạn {max} điểm ảnh. Hãy thu nhỏ ảnh rồi gửi lại.',
    en: 'Image "{filename}" has {got} pixels, over the limit of {max} pixels. Scale it down and send it again.',
  },
} as const satisfies Record<string, { vi: string; en: string }>;
