/**
 * Catalogue messages for one area of the service, merged into the one catalogue in
 * `../messages.ts`. Kept per area so parallel work on different areas never edits the same lines.
 */
export const hardeningMessages = {
  content_type_unsupported: {
    vi: 'Kiểu nội dung "{got}" không được hỗ trợ ở đây. Hãy gửi {expected}.',
    en: 'Content type "{got}" is not accepted here. Send {expected}.',
  },
  multipart_truncated: {
    vi: 'Nội dung tải lên bị cắt cụt hoặc sai định dạng multipart. Hãy gửi lại toàn bộ tệp.',
    en: 'The upload is truncated or not well-formed multipart. Send the whole file again.',
  },
  too_many_files_in: {
    vi: 'Quá nhiều tệp trong trường "{field}": tối đa {max} tệp mỗi yêu cầu.',
    en: 'Too many files in field "{field}": at most {max} per request.',
  },
  json_too_deep: {
    vi: 'Nội dung JSON lồng nhau quá sâu: tối đa {max} cấp.',
    en: 'The JSON body is nested too deeply: at most {max} levels.',
  },
  text_nul_byte: {
    vi: 'Trường "{field}" chứa ký tự không được phép (NUL hoặc ký tự UTF-16 lẻ).',
    en: 'Field "{field}" holds a character that is not allowed (NUL or an unpaired UTF-16 surrogate).',
  },
  event_too_large: {
    vi: 'Nội dung sự kiện quá lớn: tối đa {max_kb} KB.',
    en: 'The event body is too large: at most {max_kb} KB.',
  },
  event_reserved_key: {
    vi: 'Khóa "{key}" được dành cho máy chủ; hãy bỏ nó khỏi nội dung sự kiện.',
    en: 'The key "{key}" is reserved for the server; remove it from the event body.',
  },
  event_quota_exceeded: {
    vi: 'Bạn đã gửi {max} sự kiện chờ duyệt cho đối tượng này trong 24 giờ. Hãy đợi {retry_after} giây.',
    en: 'You have sent {max} pending events for this entity in 24 hours. Wait {retry_after} seconds.',
  },
  login_locked: {
    vi: 'Tài khoản này bị tạm khóa đăng nhập vì nhập sai mật khẩu nhiều lần. Hãy đợi {retry_after} giây rồi thử lại.',
    en: 'Sign-in to this account is paused after repeated wrong passwords. Wait {retry_after} seconds and try again.',
  },
  origin_forbidden: {
    vi: 'Yêu cầu ghi dùng cookie đăng nhập phải đến từ trang của chính dịch vụ; yêu cầu từ trang web khác hoặc không có tiêu đề Origin bị từ chối. Hãy dùng ứng dụng của chính dịch vụ hoặc gửi token Bearer.',
    en: "A write signed in by cookie must come from the service's own pages; one from another web site, or with no Origin header, is refused. Use the service's own app or send a Bearer token.",
  },
  validation_required: { vi: 'Trường "{field}" bị thiếu.', en: 'Field "{field}" is missing.' },
  validation_type: { vi: 'Trường "{field}" sai kiểu dữ liệu.', en: 'Field "{field}" has the wrong type.' },
  validation_too_small: { vi: 'Trường "{field}" quá ngắn hoặc quá nhỏ.', en: 'Field "{field}" is too short or too small.' },
  validation_too_big: { vi: 'Trường "{field}" quá dài hoặc quá lớn.', en: 'Field "{field}" is too long or too large.' },
  validation_format: { vi: 'Trường "{field}" sai định dạng.', en: 'Field "{field}" is not in the expected format.' },
  validation_choice: {
    vi: 'Giá trị của trường "{field}" không nằm trong các lựa chọn cho phép.',
    en: 'The value of field "{field}" is not one of the allowed choices.',
  },
  validation_range: { vi: 'Giá trị của trường "{field}" nằm ngoài khoảng cho phép.', en: 'The value of field "{field}" is out of range.' },
  validation_invalid: { vi: 'Giá trị của trường "{field}" không hợp lệ.', en: 'The value of field "{field}" is not valid.' },
  quality_too_small: { vi: 'ảnh quá nhỏ', en: 'the image is too small' },
  quality_too_blurred: { vi: 'ảnh bị mờ', en: 'the image is blurred' },
  quality_too_dark: { vi: 'ảnh quá tối', en: 'the image is too dark' },
  species_unknown: {
    vi: 'Loài "{species}" không có trong danh mục. Các tên gần nhất: {close}.',
    en: 'Species "{species}" is not in the catalogue. Closest names: {close}.',
  },
  photos_too_few: {
    vi: 'Cần ít nhất {min} ảnh khác nhau cho loại "{kind}"; đã nhận {got}.',
    en: 'At least {min} different photos are needed for kind "{kind}"; got {got}.',
  },
  photos_duplicate: {
    vi: 'Ảnh "{filename}" trùng hoặc gần trùng với một ảnh khác trong cùng yêu cầu. Hãy chụp từ góc khác.',
    en: 'Photo "{filename}" is identical or nearly identical to another photo in this request. Take it from another angle.',
  },
  video_too_long: {
    vi: 'Video dài {got_s} giây, vượt giới hạn {max_s} giây. Hãy cắt ngắn rồi gửi lại.',
    en: 'The video is {got_s} seconds long, over the {max_s}-second limit. Trim it and send it again.',
  },
  video_too_big_frame: {
    vi: 'Độ phân giải video {got} vượt giới hạn {max}. Hãy giảm độ phân giải rồi gửi lại.',
    en: 'The video resolution {got} is over the {max} limit. Lower it and send it again.',
  },
  verify_add_mismatch: {
    vi: 'Ảnh không khớp với cây này nên không được thêm vào. Xem kết quả nhận dạng trong "verdict".',
    en: 'The photo does not match this tree, so it was not added. See the identification result in "verdict".',
  },
  scan_species_prior: {
    vi: 'Danh sách loài dựa trên các loài bạn đã đăng ký và danh mục, không phải do nhìn ảnh mà đoán. Hãy chọn đúng loài của cây.',
    en: "The species list comes from the species you have enrolled and the catalogue, not from looking at the photo. Pick the tree's real species.",
  },
  media_image: { vi: 'ảnh', en: 'image' },
  media_video: { vi: 'video', en: 'video' },
} as const satisfies Record<string, { vi: string; en: string }>;
