import { FIELD_TEXT } from './i18n-field.js';
import { SHOP_TEXT } from './i18n-shop.js';
import { CALIBRATION_TEXT } from './i18n-calibration.js';
/**
 * Every text of the app in Vietnamese (the default) and English. The choice is kept in
 * localStorage and sent as Accept-Language, so the server's own sentences follow it.
 */
const TEXT = {
  ...FIELD_TEXT,
  ...SHOP_TEXT,
  ...CALIBRATION_TEXT,
  app_title: ['Nhận dạng cá thể', 'Individual identity'],
  nav_identify: ['Nhận dạng', 'Identify'],
  nav_enrol: ['Đăng ký', 'Enrol'],
  nav_mine: ['Của tôi', 'Mine'],
  nav_population: ['Đàn', 'Herd'],
  nav_survey: ['Khảo sát', 'Survey'],
  nav_batch: ['Lô quả', 'Fruit batch'],
  sign_in: ['Đăng nhập', 'Sign in'],
  sign_up: ['Tạo tài khoản', 'Create account'],
  sign_out: ['Đăng xuất', 'Sign out'],
  username: ['Tên đăng nhập', 'Username'],
  password: ['Mật khẩu', 'Password'],
  signed_in_as: ['Đang dùng tài khoản', 'Signed in as'],
  auth_intro: [
    'Đăng nhập để nhận dạng và quản lý cây, quả, vật nuôi của bạn.',
    'Sign in to identify and manage your trees, fruit and animals.',
  ],
  kind: ['Loại', 'Kind'],
  kind_tree: ['Cây', 'Tree'],
  kind_fruit: ['Quả', 'Fruit'],
  kind_animal: ['Vật nuôi', 'Animal'],
  photos: ['Ảnh', 'Photos'],
  take_photos: ['Chụp hoặc chọn ảnh', 'Take or choose photos'],
  photos_hint: [
    'Chụp bề mặt (vỏ cây, vỏ quả, lông) gần và rõ, vài góc khác nhau.',
    'Photograph the surface (bark, peel, coat) close and sharp, from a few angles.',
  ],
  farm: ['Mã trang trại', 'Farm id'],
  species: ['Loài', 'Species'],
  name: ['Tên', 'Name'],
  zone: ['Khu', 'Zone'],
  tree_id: ['Thuộc cây: mã in trên thẻ cây hoặc id (tuỳ chọn)', 'On tree: its printed code or id (optional)'],
  enrol: ['Đăng ký', 'Enrol'],
  attach_location: ['Gắn vị trí hiện tại', 'Attach my location'],
  location_failed: ['Không lấy được vị trí; có thể đăng ký không cần vị trí.', 'Could not get the location; you can enrol without it.'],
  enrol_title: ['Đăng ký cá thể mới', 'Enrol a new individual'],
  enrolled: ['Đã đăng ký.', 'Enrolled.'],
  open: ['Mở', 'Open'],
  identify: ['Nhận dạng', 'Identify'],
  identify_n: ['Nhận dạng từ {n} ảnh', 'Identify from {n} photos'],
  angles_tree: [
    'Chụp 2–3 góc vỏ thân của cùng một cây, đi vòng quanh thân: nhiều góc giúp trả lời chắc chắn hơn.',
    'Take 2–3 angles of the same trunk, walking round it: more angles give a surer answer.',
  ],
  angles_fruit: [
    'Chụp 2–3 mặt của cùng một quả, xoay quả giữa các lần chụp: nhiều mặt giúp trả lời chắc chắn hơn.',
    'Take 2–3 sides of the same fruit, turning it between shots: more sides give a surer answer.',
  ],
  angles_animal: [
    'Chụp 2–3 góc của cùng một con: mặt hoặc mõm, rồi hai bên hông. Nhiều góc giúp trả lời chắc chắn hơn.',
    'Take 2–3 angles of the same animal: the face or muzzle, then both flanks. More angles give a surer answer.',
  ],
  angles_one: [
    'Đã có 1 góc. Thêm một góc khác của chính đối tượng này để trả lời chắc chắn hơn, hoặc nhận dạng ngay.',
    'One angle so far. Add another angle of this same one for a surer answer, or identify now.',
  ],
  angles_enough: [
    'Đủ góc: {n} ảnh sẽ được hỏi như một đối tượng duy nhất.',
    'Enough angles: the {n} photos are asked as one single subject.',
  ],
  add_angle: ['Thêm góc khác', 'Add another angle'],
  identify_title: ['Đây là cây / quả / con nào?', 'Which one is this?'],
  your_photo: ['Ảnh của bạn', 'Your photo'],
  verdict_match: ['Đã tìm thấy.', 'Found it.'],
  verdict_uncertain: ['Chưa chắc chắn.', 'Not sure.'],
  verdict_uncertain_help: [
    'Hệ thống không đoán khi không chắc. Hãy so sánh ảnh và chọn đúng cá thể, hoặc chụp thêm ảnh rõ hơn. Không cần gửi lại cùng ảnh.',
    'The system does not guess when it is unsure. Compare the photos and choose the right one, or take a clearer photo. Sending the same photo again will not help.',
  ],
  verdict_no_match: ['Không khớp với cá thể nào bạn đã đăng ký.', 'It matches nothing you have enrolled.'],
  row_match: ['khớp', 'match'],
  row_uncertain: ['chưa chắc', 'not sure'],
  row_no_match: ['không khớp', 'no match'],
  choose: ['Chọn đúng cá thể này', 'Choose this one'],
  none_of_these: ['Không phải cá thể nào ở đây', 'None of these'],
  chosen: ['Đã ghi nhận lựa chọn của bạn. Cảm ơn!', 'Your choice is recorded. Thank you!'],
  unnamed: ['(chưa đặt tên)', '(no name)'],
  mine_title: ['Cây, quả và vật nuôi của tôi', 'My trees, fruit and animals'],
  trees: ['Cây', 'Trees'],
  animals: ['Vật nuôi', 'Animals'],
  fruit: ['Quả', 'Fruit'],
  nothing_yet: ['Chưa có gì.', 'Nothing yet.'],
  load: ['Xem', 'Show'],
  rename: ['Đổi tên', 'Rename'],
  save: ['Lưu', 'Save'],
  public_name_title: ['Tên công khai của nhà vườn', 'Your public name as a grower'],
  public_name_hint: [
    'Người mua đọc tên này là nhà vườn trên trang truy xuất của những cây bạn đã công khai. Để trống để rút lại; tên đăng nhập không bao giờ hiện thay.',
    'Shoppers read this as the grower on the pages of the trees you published. Leave it empty to withdraw it; your username is never shown instead.',
  ],
  public_name_label: ['Tên công khai', 'Public name'],
  public_name_saved: ['Đã lưu: người mua sẽ đọc "{name}" là nhà vườn.', 'Saved: shoppers will read "{name}" as the grower.'],
  public_name_withdrawn: [
    'Đã rút tên công khai: trang truy xuất không nêu tên nhà vườn.',
    'Public name withdrawn: the pages name no grower.',
  ],
  publish: ['Công bố', 'Publish'],
  publish_summary: ['Chỉ công bố tóm tắt', 'Publish a summary only'],
  unpublish: ['Ẩn', 'Unpublish'],
  visibility: ['Hiển thị', 'Visibility'],
  vis_private: ['riêng tư', 'private'],
  vis_restricted: ['tóm tắt công khai', 'summary public'],
  vis_public: ['công khai', 'public'],
  public_page: ['Trang truy xuất công khai', 'Public trace page'],
  timeline: ['Dòng thời gian', 'Timeline'],
  chain_ok: ['Chuỗi băm toàn vẹn.', 'The hash chain is intact.'],
  chain_broken: ['Chuỗi băm bị hỏng!', 'The hash chain is broken!'],
  care_event: ['Chăm sóc', 'Care'],
  care_event_farm: ['Chăm sóc cả trang trại', 'Care of the whole farm'],
  grants: ['Chia sẻ', 'Sharing'],
  grant_to: ['Chia sẻ với tài khoản', 'Share with account'],
  grant: ['Chia sẻ', 'Share'],
  revoke: ['Thu hồi', 'Revoke'],
  access_read: ['xem', 'read'],
  access_write: ['sửa', 'write'],
  delete: ['Xoá', 'Delete'],
  pop_title: ['Số lượng đàn', 'Herd counts'],
  total_head: ['Tổng số con', 'Total head'],
  enrolled_head: ['Đã đăng ký', 'Enrolled'],
  alerts: ['Cảnh báo (48 giờ qua)', 'Alerts (last 48 hours)'],
  no_alerts: ['Không có cảnh báo.', 'No alerts.'],
  resolve: ['Đã xử lý', 'Resolved'],
  count: ['Số con đếm được', 'Head counted'],
  method: ['Cách đếm', 'Method'],
  method_visual: ['Đếm bằng mắt', 'By eye'],
  method_photo: ['Qua ảnh', 'From photos'],
  method_video: ['Qua video', 'From video'],
  method_drone: ['Bằng drone', 'By drone'],
  method_gate: ['Qua cổng đếm', 'At a counting gate'],
  method_other: ['Cách khác', 'Other'],
  send_count: ['Ghi số đếm', 'Record count'],
  zone_ok: ['ổn', 'ok'],
  zone_alert: ['có cảnh báo', 'alert'],
  zone_not_counted: ['chưa đếm', 'not counted'],
  latest: ['Lần đếm gần nhất', 'Latest count'],
  batch_title: ['Nhận dạng lô quả', 'Identify a fruit batch'],
  batch_hint: [
    'Chọn nhiều ảnh quả (hoặc một tệp zip). Tiến độ hiện trực tiếp.',
    'Choose many fruit photos (or one zip file). Progress shows live.',
  ],
  archive: ['Tệp zip (tuỳ chọn)', 'Zip archive (optional)'],
  start_batch: ['Bắt đầu', 'Start'],
  batch_done: ['Lô đã xong.', 'The batch is done.'],
  download_csv: ['Tải CSV', 'Download CSV'],
  file: ['Tệp', 'File'],
  result: ['Kết quả', 'Result'],
  waiting_retry: [
    'Có quá nhiều yêu cầu trong một lúc. Đang đợi {s} giây rồi tự gửi lại; ảnh và những gì bạn nhập vẫn được giữ.',
    'Too many requests at once. Waiting {s} seconds, then sending again; your photos and entries are kept.',
  ],
  rate_limited: [
    'Có quá nhiều yêu cầu trong một lúc. Hãy đợi một lát rồi thử lại.',
    'Too many requests at once. Wait a moment and try again.',
  ],
  rate_limited_in: [
    'Có quá nhiều yêu cầu trong một lúc. Hãy đợi {s} giây rồi thử lại.',
    'Too many requests at once. Wait {s} seconds and try again.',
  ],
  request_failed: [
    'Máy chủ không làm được yêu cầu này (mã {status}). Hãy thử lại sau.',
    'The server could not complete this request (code {status}). Try again later.',
  ],
  working: ['Đang xử lý…', 'Working…'],
  need_photos: ['Hãy chọn ít nhất một ảnh.', 'Choose at least one photo.'],
  not_available: ['Chức năng này chưa có trên máy chủ này.', 'This feature is not available on this server.'],
  network_error: ['Không kết nối được máy chủ. Hãy thử lại.', 'Could not reach the server. Try again.'],
  language: ['English', 'Tiếng Việt'],
  trace_title: ['Truy xuất nguồn gốc', 'Traceability'],
  trace_not_found: ['Không tìm thấy mã truy xuất này.', 'This traceability code was not found.'],
  trace_restricted: ['Chủ vườn chỉ công bố thông tin tóm tắt.', 'The owner shares a summary only.'],
  recorded: ['Ngày ghi nhận', 'Recorded'],
  coarse_location: ['Vị trí gần đúng (ô geohash)', 'Coarse location (geohash cell)'],
  photos_held: ['Số ảnh máy chủ giữ', 'Photos the server holds'],
  photos_in_record: ['Ảnh trong bản ghi đã neo', 'Photos in the anchored record'],
  record_cid: ['CID bản ghi', 'Record CID'],
  record_hash: ['Mã băm bản ghi (SHA-256)', 'Record hash (SHA-256)'],
  anchor: ['Neo bằng chứng', 'Anchor'],
  anchor_none: ['Chưa được neo.', 'Not anchored yet.'],
  anchor_local: [
    'Được ký bằng khoá của chính máy chủ này. Đây không phải giao dịch blockchain.',
    "Signed by this server's key. This is not a blockchain transaction.",
  ],
  anchor_local_fp: [
    'Được ký bằng khoá của chính máy chủ này (dấu vân tay {fp}). Đây không phải giao dịch blockchain.',
    "Signed by this server's key (fingerprint {fp}). This is not a blockchain transaction.",
  ],
  anchor_cardano: ['Giao dịch Cardano {tx} ({n} xác nhận).', 'Cardano transaction {tx} ({n} confirmations).'],
  anchor_status: ['Trạng thái: {s}', 'Status: {s}'],
  view_tx: ['Xem giao dịch', 'View the transaction'],
  json: ['Dữ liệu JSON', 'JSON data'],
  export_bundle: ['Gói bằng chứng', 'Evidence bundle'],
  export_hint: ['(tự kiểm tra không cần tài khoản: npm run verify)', '(check it yourself, no account needed: npm run verify)'],
  no_location: [
    'Không có vị trí khi ghi nhận: mã dùng ô "0000000" thay cho vị trí thật.',
    'No location was given at enrolment: the code uses the cell "0000000" in place of a real one.',
  ],
  review_query: ['Ảnh cần nhận dạng', 'The photo to identify'],
  like_very: ['rất giống', 'very similar'],
  like_fair: ['khá giống', 'fairly similar'],
  like_faint: ['hơi giống', 'somewhat similar'],
  like_help: [
    'So sánh từng ảnh với ảnh cần nhận dạng; hệ thống chưa chắc nên để bạn quyết định.',
    'Compare each photo with the one to identify; the system is not sure, so you decide.',
  ],
  remove_photo: ['Bỏ ảnh {n}', 'Remove photo {n}'],
  choose_photos: ['Chọn ảnh', 'Choose photos'],
  choose_video: ['Chọn video', 'Choose a video'],
  choose_zip: ['Chọn tệp zip', 'Choose a zip file'],
  choose_file: ['Chọn tệp', 'Choose a file'],
  files_none: ['Chưa chọn tệp nào', 'No file chosen'],
  files_chosen: ['Đã chọn {n} tệp', '{n} file(s) chosen'],
  map_note: ['Chỉ hiện ô khoảng 150 m, không hiện toạ độ chính xác.', 'Only the ~150 m cell is shown, never the exact position.'],
} as const satisfies Record<string, readonly [string, string]>;

export type TextKey = keyof typeof TEXT;
export type Lang = 'vi' | 'en';

const KEY = 'markless.lang';
let lang: Lang = (globalThis.localStorage?.getItem(KEY) as Lang | null) === 'en' ? 'en' : 'vi';

export const currentLang = (): Lang => lang;

export function setLang(l: Lang): void {
  lang = l;
  localStorage.setItem(KEY, l);
  document.documentElement.lang = l;
}

/** A photo's quality reason in words (reason_*); a code the app does not know reads as "unusable", never as the code. */
export function reasonText(code: string): string {
  return t(`reason_${code}` in TEXT ? (`reason_${code}` as TextKey) : 'reason_unusable');
}

/** The text for `key` in the current language, with `{name}` placeholders filled. */
export function t(key: TextKey, params: Record<string, string | number> = {}): string {
  const s: string = TEXT[key][lang === 'vi' ? 0 : 1];
  return s.replace(/\{(\w+)\}/g, (_, k: string) => String(params[k] ?? ''));
}
