/**
 * Catalogue messages of the field app's flows (issue 24): enrolment naming every refused photo,
 * review, merge, owner events. Merged into the one catalogue in `../messages.ts`.
 */
export const fieldMessages = {
  photos_refused: {
    vi: '{count} ảnh không dùng được: {files} ({reasons}). Hãy chụp lại các ảnh này; nếu chỉ là cảnh báo, bạn có thể giữ chúng (accept_warnings=true).',
    en: '{count} photo(s) cannot be used: {files} ({reasons}). Retake them; if these are only warnings, you may keep them (accept_warnings=true).',
  },
  already_enrolled: {
    vi: 'Những ảnh này giống con vật "{name}" bạn đã đăng ký. Hãy thêm ảnh vào con đó, hoặc gửi lại với accept_warnings=true nếu đây là con khác.',
    en: 'These photos look like "{name}", an animal you already enrolled. Add them to it, or send again with accept_warnings=true if this is another animal.',
  },
  merge_same: {
    vi: 'Không thể gộp một con vật với chính nó.',
    en: 'An animal cannot be merged with itself.',
  },
  merge_already_undone: {
    vi: 'Lần gộp này đã được hoàn tác rồi; hai con vật đã tách riêng.',
    en: 'This merge has already been undone; the two animals are separate again.',
  },
  unmerge_into_gone: {
    vi: 'Không thể hoàn tác lần gộp này vì con vật được gộp vào đã bị xoá hoặc đã gộp vào con khác; hãy hoàn tác việc đó trước.',
    en: 'This merge cannot be undone because the animal it went into was deleted or merged into another; undo that first.',
  },
  quality_identical: { vi: 'ảnh trùng hệt một ảnh khác', en: 'identical to another photo' },
  quality_near_identical: { vi: 'ảnh gần trùng một ảnh khác', en: 'nearly identical to another photo' },
  quality_image_undecodable: { vi: 'không đọc được ảnh', en: 'the image cannot be read' },
  quality_no_animal_found: { vi: 'không thấy con vật', en: 'no animal in view' },
} as const satisfies Record<string, { vi: string; en: string }>;
