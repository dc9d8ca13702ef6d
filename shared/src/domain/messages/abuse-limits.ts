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
  stream_limit_account: {
    vi: 'Tài khoản của bạn đã có {max} luồng theo dõi tiến độ đang mở. Hãy đóng một luồng hoặc thử lại sau {retry_after} giây.',
    en: 'Your account already has {max} progress streams open. Close one, or try again in {retry_after} seconds.',
  },
} as const;
