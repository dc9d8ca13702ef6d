/**
 * The learning loop's decisions and the calibration's state, as the owner reads them on the
 * learning card (issues 23 and 24): each a whole sentence in both languages, filled from the
 * figures a run records (shared/src/domain/learning-reason.ts). Percentages are passed already
 * multiplied by 100. Merged into the one catalogue in `../messages.ts`.
 */
export const learningMessages = {
  learn_too_few_held_out: {
    vi: 'Không dùng mô hình mới: {photos} ảnh giữ lại của {individuals} cá thể là quá ít để cho thấy mô hình mới tốt hơn (cần ít nhất {min_photos} ảnh của {min_individuals} cá thể); vẫn dùng mô hình hiện tại.',
    en: 'Refused: {photos} held-out photos of {individuals} individuals are too few to show that the new model helps (at least {min_photos} photos of {min_individuals} individuals are needed); the served model stays.',
  },
  learn_top1_would_fall: {
    vi: 'Không dùng mô hình mới: tỉ lệ ảnh có đúng cá thể đứng đầu sẽ giảm từ {from}% xuống {to}% trên {photos} ảnh giữ lại, nhiều hơn mức {tolerance}% mà độ nhiễu của mẫu cho phép; vẫn dùng mô hình hiện tại.',
    en: "Refused: served top-1 would fall from {from}% to {to}% on {photos} held-out photos, more than the {tolerance}% this sample's noise allows; the served model stays.",
  },
  learn_cannot_calibrate: {
    vi: 'Không dùng mô hình mới: nó sẽ nhận ra nhiều hơn, nhưng chỉ còn {queries} lượt thử trên ảnh nó chưa từng học để hiệu chỉnh (cần {needed} lượt để bảo đảm nhận nhầm không quá {target}%), nên chưa thể tin kết luận của nó; vẫn dùng mô hình hiện tại.',
    en: 'Refused: the new model would match more, but only {queries} queries of photos it never trained on are left to calibrate it ({needed} are needed to vouch for at most {target}% false matches), so its matches could not be trusted; the served model stays.',
  },
  learn_adopted_more_matches: {
    vi: 'Đã dùng mô hình mới: tỉ lệ nhận đúng với không quá {target}% nhận nhầm, ở ngưỡng mà mỗi hiệu chỉnh bảo đảm được, tăng từ {from}% lên {to}%; tỉ lệ đúng cá thể đứng đầu {top1_from}% → {top1_to}% trên {photos} ảnh giữ lại.',
    en: 'Adopted: correct matches at no more than {target}% false matches, at the threshold each calibration can vouch for, rise from {from}% to {to}%; top-1 {top1_from}% → {top1_to}% on {photos} held-out photos.',
  },
  learn_adopted_top1: {
    vi: 'Đã dùng mô hình mới: chưa mô hình nào kết luận "đúng con này" được với không quá {target}% nhận nhầm, nhưng tỉ lệ đúng cá thể đứng đầu tăng vượt mức nhiễu, từ {top1_from}% lên {top1_to}% trên {photos} ảnh giữ lại.',
    en: 'Adopted: neither model can answer match at no more than {target}% false matches yet, and top-1 rises beyond noise from {top1_from}% to {top1_to}% on {photos} held-out photos.',
  },
  learn_no_gain: {
    vi: 'Không dùng mô hình mới: tỉ lệ nhận đúng với không quá {target}% nhận nhầm không tăng ({served}% với mô hình hiện tại, {candidate}% với mô hình mới; tỉ lệ đúng cá thể đứng đầu {top1_from}% → {top1_to}%).',
    en: 'Refused: correct matches at no more than {target}% false matches, at the threshold each calibration can vouch for, do not improve ({served}% served, {candidate}% new; top-1 {top1_from}% → {top1_to}%).',
  },
  learn_linear_adopted: {
    vi: 'Đã dùng mô hình mới: kiểm tra chéo trên {photos} ảnh, tỉ lệ đúng cá thể đứng đầu là {candidate}% so với {served}% của mô hình hiện tại (cần tăng ít nhất {gain}%).',
    en: 'Adopted: cross-validated gallery top-1 is {candidate}% against {served}% served on {photos} photos (a gain of {gain}% is needed).',
  },
  learn_linear_refused: {
    vi: 'Không dùng mô hình mới: kiểm tra chéo trên {photos} ảnh, tỉ lệ đúng cá thể đứng đầu là {candidate}% so với {served}% của mô hình hiện tại (cần tăng ít nhất {gain}%).',
    en: 'Refused: cross-validated gallery top-1 is {candidate}% against {served}% served on {photos} photos (a gain of {gain}% is needed).',
  },
  learn_needs_two: {
    vi: 'Bỏ qua: cần ít nhất hai cá thể, trong đó một cá thể có hai ảnh (hiện có {photos} ảnh).',
    en: 'Skipped: learning needs two individuals, one of them with two photos ({photos} photos so far).',
  },
  learn_backbone_animals_only: {
    vi: 'Bỏ qua: cách huấn luyện tinh chỉnh chỉ dành cho lông vật nuôi.',
    en: 'Skipped: the fine-tuning recipe is for animal coats only.',
  },
  learn_no_trainer: {
    vi: 'Bỏ qua: máy chủ này chưa cài python3 với torch và onnx nên chưa huấn luyện tinh chỉnh được (Debian: python3-torch python3-onnx python3-pil).',
    en: 'Skipped: python3 with torch and onnx is not installed on this server, so it cannot fine-tune (Debian: python3-torch python3-onnx python3-pil).',
  },
  learn_rolled_back_base: {
    vi: 'Đã gỡ phiên bản {version}; chỉ còn mô hình gốc được dùng.',
    en: 'Version {version} was rolled back; the base model alone serves.',
  },
  learn_rolled_back_to: {
    vi: 'Đã gỡ phiên bản {version}; phiên bản {adopted} được dùng lại.',
    en: 'Version {version} was rolled back; version {adopted} serves again.',
  },
  learn_not_queued: {
    vi: 'Không xếp được lần học này vào hàng đợi; ảnh mới hoặc xác nhận tiếp theo sẽ thử lại.',
    en: 'The learning run could not be queued ({detail}); the next new photo or confirmation tries again.',
  },
  learn_failed: {
    vi: 'Lần huấn luyện này bị lỗi và không thay đổi gì; lần chạy sau sẽ thử lại.',
    en: 'This training failed and changed nothing; the next run tries again.',
  },
  learn_retrain_served: {
    vi: 'Giữ lại điều đã học: sau khi được chọn, mô hình được huấn luyện lại theo đúng cách cũ trên cả {photos} ảnh (mô hình được đánh giá chỉ học {judged_photos} ảnh) và được dùng, vì trên {queries} ảnh giữ lại nó không kém hơn (đúng cá thể đứng đầu {top1_judged}% → {top1_retrained}%; nhận đúng {match_judged}% → {match_retrained}%). Nó đã học mọi ảnh, nên chỉ kết luận "đúng con này" khi có đủ ảnh nó chưa từng học để hiệu chỉnh.',
    en: 'Kept what it learned: once adopted, the model was trained again with the same recipe on all {photos} photos (the judged one on {judged_photos}) and serves, as it does no worse on the {queries} held-out photos (top-1 {top1_judged}% → {top1_retrained}%; correct matches {match_judged}% → {match_retrained}%). It has seen every photo, so it answers match only once photos it never trained on calibrate it.',
  },
  learn_retrain_top1_fell: {
    vi: 'Vẫn dùng mô hình đã được đánh giá: khi huấn luyện lại trên cả {photos} ảnh, tỉ lệ đúng cá thể đứng đầu trên {queries} ảnh giữ lại sẽ giảm từ {top1_judged}% xuống {top1_retrained}%.',
    en: 'The judged model serves: trained again on all {photos} photos, top-1 on the {queries} held-out photos would fall from {top1_judged}% to {top1_retrained}%.',
  },
  learn_retrain_fewer_matches: {
    vi: 'Vẫn dùng mô hình đã được đánh giá: nếu huấn luyện lại trên cả {photos} ảnh thì không còn ảnh nào nó chưa từng học để hiệu chỉnh, nên tỉ lệ nhận đúng với không quá {target}% nhận nhầm trên {queries} ảnh giữ lại sẽ giảm từ {match_judged}% xuống {match_retrained}%.',
    en: 'The judged model serves: trained again on all {photos} photos, it would have no photo it never trained on left to calibrate it, so correct matches at no more than {target}% false matches on the {queries} held-out photos would fall from {match_judged}% to {match_retrained}%.',
  },
  learn_retrain_failed: {
    vi: 'Vẫn dùng mô hình đã được đánh giá: huấn luyện lại trên cả {photos} ảnh bị lỗi.',
    en: 'The judged model serves: training it again on all {photos} photos failed ({detail}).',
  },
  cal_too_few_queries: {
    vi: '{n} lượt thử trên ảnh của bạn chưa đủ để bảo đảm nhận nhầm dưới 1%; cần {needed} lượt.',
    en: '{n} trial queries on your photos are too few to vouch for under 1% false matches; {needed} are needed.',
  },
  cal_too_few_individuals: {
    vi: '{individuals} cá thể là quá ít để đại diện cho những con chưa đăng ký; cần ít nhất 5.',
    en: '{individuals} individuals are too few to stand for the ones never enrolled; at least 5 are needed.',
  },
  cal_too_few_answers: {
    vi: '{right} câu trả lời đúng và {wrong} câu trả lời sai là quá ít để hiệu chỉnh; cần ít nhất 10 mỗi loại.',
    en: '{right} right and {wrong} wrong answers are too few to calibrate; at least 10 of each are needed.',
  },
  cal_too_few_effective: {
    vi: 'Các ảnh của cùng một cá thể cho kết quả giống nhau, nên ở loại lượt thử ít nhất, các lượt thử của bạn chỉ có giá trị như khoảng {effective} lượt độc lập; cần {needed} lượt để bảo đảm nhận nhầm dưới 1%.',
    en: 'Photos of one individual answer alike, so where your trial queries are fewest they are worth only about {effective} independent ones; {needed} are needed to vouch for under 1% false matches.',
  },
  cal_stale: {
    vi: 'Hiệu chỉnh của bạn được làm theo quy tắc cũ, hứa ít nhận nhầm hơn thực tế; nó sẽ được làm lại ở lần tự học sau.',
    en: 'Your calibration was fitted under an older rule that promised fewer false matches than real photos gave; it is refitted at your next learning run.',
  },
} as const satisfies Record<string, { vi: string; en: string }>;
