/**
 * Catalogue messages for video surveys (POST /api/survey), merged into the one catalogue in
 * `../messages.ts`.
 */
export const surveyMessages = {
  survey_video_endless: {
    vi: 'Video không cho biết độ dài hoặc dài hơn {max_s} giây: không thể khảo sát. Hãy cắt ngắn rồi gửi lại.',
    en: 'The video has no readable length or runs past {max_s} seconds, so it cannot be surveyed. Trim it and send it again.',
  },
  survey_no_frames: {
    vi: 'Video không có khung hình nào đọc được: không thể khảo sát.',
    en: 'The video has no readable frame, so it cannot be surveyed.',
  },
  survey_species_required: {
    vi: 'Khảo sát vật nuôi cần cho biết loài (species).',
    en: 'An animal survey needs the species.',
  },
  survey_track_unknown: {
    vi: 'Khảo sát này không có vệt theo dõi số {track}.',
    en: 'This survey has no track number {track}.',
  },
  survey_not_done: {
    vi: 'Khảo sát chưa xong: hãy đợi đến khi trạng thái là done.',
    en: 'The survey is not finished yet: wait until its status is done.',
  },
  survey_review_fruit: {
    vi: 'Vệt theo dõi quả chỉ được đếm, không nhận dạng: không có gì để xác nhận hay sửa.',
    en: 'Fruit tracks are counted, not identified: there is nothing to confirm or correct.',
  },
  survey_review_choose: {
    vi: 'Vệt này chưa chắc chắn: hãy chọn đúng cá thể (individual_id) hoặc để trống nếu là con lạ.',
    en: 'This track is uncertain: choose the right individual (individual_id), or leave it empty for a stranger.',
  },
} as const;
