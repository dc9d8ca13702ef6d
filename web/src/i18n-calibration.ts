/**
 * Texts of the sentence under an identify verdict that says which calibration decided
 * (decided-by.ts), merged into i18n.ts.
 */
export const CALIBRATION_TEXT = {
  decided_owner: [
    'Kết luận theo hiệu chuẩn riêng của bạn, học từ {n} câu hỏi của chính bạn.',
    'Decided by your own calibration, learned from {n} of your own queries.',
  ],
  decided_pooled: [
    'Kết luận theo hiệu chuẩn chung, học từ các câu trả lời đã được những chủ khác xác nhận (không chia sẻ ảnh, tên hay mã nào).',
    'Decided by the shared calibration, learned from answers other owners confirmed (no photo, name or id is shared).',
  ],
  decided_shipped: [
    'Kết luận theo hiệu chuẩn có sẵn cho loại này, đo trên các cá thể của những đàn khác.',
    "Decided by this kind's built-in calibration, measured on individuals of other herds.",
  ],
  decided_defaults: [
    'Chưa có hiệu chuẩn nào đủ bằng chứng cho loại này, nên hệ thống thận trọng và hiếm khi kết luận là khớp.',
    'No calibration has enough evidence for this kind yet, so the system is cautious and rarely says it is a match.',
  ],
  decided_bound: [' Tỉ lệ nhận nhầm không quá {p}%.', ' It names the wrong one at most {p}% of the time.'],
  decided_grow: [
    ' Mỗi lần bạn chọn đúng cá thể, hiệu chuẩn riêng của bạn có thêm bằng chứng; nó cần khoảng 300 câu trả lời.',
    ' Each time you pick the right one, your own calibration gains evidence; it needs about 300 answers.',
  ],
} as const satisfies Record<string, readonly [string, string]>;
