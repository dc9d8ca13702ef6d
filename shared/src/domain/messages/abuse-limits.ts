/**
 * Catalogue messages for the limits on what strangers can add to an entity and on live streams
 * (issue 21), merged into the one catalogue in `../messages.ts`.
 */
export const abuseLimitMessages = {
  event_entity_quota_exceeded: {
    vi: 'Đối tượng này đã có quá nhiều sự kiện chờ chủ duyệt (tối đa {max_events} sự kiện, {max_kb} KB từ người khác). Hãy đợi chủ duyệt hoặc từ chối bớt rồi gửi lại sau {retry_after} giây.',
    en: 'This entity already holds too many events waiting for its owner (at most {max_events} events, {max_kb} KB from others). Wait for the owner to approve or reject some, then send again in {retry_after} seconds.',
  },
  stream_limit_batch: {
    vi: 'Lô ảnh này đã có {max} luồng theo dõi tiến độ đang mở. Hãy đóng một luồng hoặc thử lại sau {retry_after} giây.',
    en: 'This batch already has {max} progress streams open. Close one, or try again in {retry_after} seconds.',
  },
  stream_limit_survey: {
    vi: 'Cuộc khảo sát này đã có {max} luồng theo dõi tiến độ đang mở. Hãy đóng một luồng hoặc thử lại sau {retry_after} giây.',
    en: 'This survey already has {max} progress streams open. Close one, or try again in {retry_after} seconds.',
  },
  stream_limit_account: {
    vi: 'Tài khoản của bạn đã có {max} luồng theo dõi tiến độ đang mở. Hãy đóng một luồng hoặc thử lại sau {retry_after} giây.',
    en: 'Your account already has {max} progress streams open. Close one, or try again in {retry_after} seconds.',
  },
  ocr_busy: {
    vi: 'Máy chủ đang đọc quá nhiều ảnh nhãn cùng lúc (tối đa {max}). Hãy thử lại sau {retry_after} giây.',
    en: 'The server is reading too many label photos at once (at most {max}). Try again in {retry_after} seconds.',
  },
  ocr_busy_account: {
    vi: 'Tài khoản của bạn đang có {max} ảnh nhãn được đọc cùng lúc. Hãy đợi ảnh trước xong hoặc thử lại sau {retry_after} giây.',
    en: 'Your account already has {max} label photos being read at once. Wait for them to finish, or try again in {retry_after} seconds.',
  },
  signup_throttled: {
    vi: 'Địa chỉ của bạn đã thử đăng ký thất bại quá nhiều lần. Hãy đợi {retry_after} giây rồi thử lại.',
    en: 'Too many failed sign-ups from your address. Wait {retry_after} seconds and try again.',
  },
  file_field_unexpected: {
    vi: 'Tệp được gửi trong trường "{field}", nhưng đường dẫn này không nhận tệp ở đó. Hãy gửi tệp trong trường: {expected}.',
    en: 'A file was sent in the field "{field}", which this route does not read. Send files in: {expected}.',
  },
} as const;
