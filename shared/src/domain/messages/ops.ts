/**
 * Catalogue messages for one area of the service, merged into the one catalogue in
 * `../messages.ts`. Kept per area so parallel work on different areas never edits the same lines.
 */
export const opsMessages = {
  queue_quota_exceeded: {
    vi: 'Tài khoản của bạn đã có {limit} việc đang chờ hoặc đang chạy; vui lòng thử lại sau {retry_after} giây.',
    en: 'Your account already has {limit} jobs waiting or running; please try again in {retry_after} seconds.',
  },
  dependency_unavailable: {
    vi: 'Một dịch vụ phụ thuộc ({dependency}) tạm thời không truy cập được; vui lòng thử lại sau {retry_after} giây.',
    en: 'A service we depend on ({dependency}) is temporarily unreachable; please try again in {retry_after} seconds.',
  },
  queue_unknown: {
    vi: 'Không có hàng đợi nào tên như vậy.',
    en: 'There is no queue by that name.',
  },
} as const satisfies Record<string, { vi: string; en: string }>;
