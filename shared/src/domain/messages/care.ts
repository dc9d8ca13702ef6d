/**
 * Catalogue messages for one area of the service, merged into the one catalogue in
 * `../messages.ts`. Kept per area so parallel work on different areas never edits the same lines.
 * Care (log, withdrawal) and residue interpretation.
 */
export const careMessages = {
  care_product_unknown: {
    vi: 'Không có sản phẩm "{product_id}" trong danh mục sản phẩm; hãy bỏ product_id và gửi product_name cùng interval_days.',
    en: 'There is no product "{product_id}" in the product store; leave out product_id and send product_name with interval_days instead.',
  },
  care_product_missing: {
    vi: 'Hãy cho biết đã dùng gì: product_id, product_name hoặc action.',
    en: 'Say what was used: product_id, product_name or action.',
  },
  care_applied_in_future: {
    vi: 'Thời điểm sử dụng (applied_at) không được ở tương lai.',
    en: 'The time of use (applied_at) cannot be in the future.',
  },
  residue_alert_safe: {
    vi: 'Lô hàng đạt: không có dư lượng nào vượt giới hạn, bạn có thể thu hoạch và bán như bình thường.',
    en: 'Good news: no residue is over any limit, so you can harvest and sell as usual.',
  },
  residue_alert_caution: {
    vi: 'Cẩn thận: dư lượng {names} đã gần tới giới hạn, hãy để thời gian cách ly dài hơn trước lần thu hoạch sau.',
    en: 'Take care: the residue of {names} is close to a limit, so leave a longer interval before the next harvest.',
  },
  residue_alert_warning: {
    vi: 'Chú ý: dư lượng {names} vượt giới hạn của thị trường xuất khẩu, lô này chỉ nên bán ở nơi cho phép.',
    en: "Watch out: the residue of {names} is over an export market's limit, so sell this lot only where it is allowed.",
  },
  residue_alert_danger: {
    vi: 'Nguy hiểm: {names} vượt giới hạn hoặc là chất cấm, đừng bán lô này và hãy hỏi cán bộ khuyến nông.',
    en: 'Danger: {names} is over the limit or is a banned substance, so do not sell this lot and ask your extension officer.',
  },
  residue_alert_unknown_limits: {
    vi: 'Chưa kết luận được vì chưa có giới hạn nào cho {names}, hãy giữ lô này lại cho tới khi hỏi được cán bộ khuyến nông.',
    en: 'No conclusion is possible because no limit is known for {names}, so hold this lot until you have asked your extension officer.',
  },
  residue_alert_unresolved: {
    vi: 'Chưa kết luận được vì không lấy được kết quả đo từ nơi lưu trữ, hãy giữ lô này lại và thử lại sau.',
    en: 'No conclusion is possible because the measurements could not be fetched from their store, so hold this lot and try again later.',
  },
  residue_advice_ok: {
    vi: 'Đạt yêu cầu dư lượng của thị trường {market}.',
    en: 'It meets the residue limits of the {market} market.',
  },
  residue_advice_caution: {
    vi: 'Đạt yêu cầu của thị trường {market} nhưng đã gần giới hạn, nên kiểm tra lại trước khi giao hàng.',
    en: "It meets the {market} market's limits but is close to them, so test again before shipping.",
  },
  residue_advice_not_allowed: {
    vi: 'Không nên bán vào thị trường {market} vì có dư lượng vượt giới hạn hoặc chất cấm.',
    en: 'Do not sell into the {market} market, because a residue is over its limit or banned there.',
  },
  residue_advice_unknown: {
    vi: 'Chưa biết có đạt yêu cầu của thị trường {market} hay không vì thiếu giới hạn hoặc thiếu kết quả đo.',
    en: "It is not known whether it meets the {market} market's limits, because a limit or a measurement is missing.",
  },
} as const satisfies Record<string, { vi: string; en: string }>;
