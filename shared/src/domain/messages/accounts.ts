/**
 * Catalogue messages for accounts, admin and export hardening (issue 21), merged into the one
 * catalogue in `../messages.ts`.
 */
export const accountsMessages = {
  password_weak: {
    vi: 'Mật khẩu này quá dễ đoán. Hãy dùng một cụm vài từ không liên quan hoặc dài hơn, tránh lặp ký tự và dãy quen thuộc.',
    en: 'This password is too easy to guess. Use a phrase of several unrelated words or a longer one, and avoid repeats and familiar sequences.',
  },
  username_reserved: {
    vi: 'Tên đăng nhập này được dành cho dịch vụ. Hãy chọn tên khác.',
    en: 'This username is reserved for the service. Choose another one.',
  },
  login_throttled: {
    vi: 'Có quá nhiều lần đăng nhập sai từ địa chỉ này. Hãy đợi {retry_after} giây rồi thử lại.',
    en: 'Too many failed sign-ins from this address. Wait {retry_after} seconds and try again.',
  },
  model_dir_not_allowed: {
    vi: 'Chỉ nhận mô hình từ một thư mục con của thư mục mô hình của dịch vụ (MODELS_DIR hoặc models/ đi kèm).',
    en: 'Models are accepted only from a folder inside the service’s models folder (MODELS_DIR or the bundled models/).',
  },
  cursor_invalid: {
    vi: 'Con trỏ trang không hợp lệ. Hãy dùng đúng giá trị X-Export-Next-Cursor của trang trước, hoặc bỏ nó để bắt đầu lại.',
    en: 'The page cursor is not valid. Pass the previous page’s X-Export-Next-Cursor unchanged, or leave it out to start again.',
  },
  admin_no_such_account: {
    vi: 'Không có tài khoản nào tên "{username}". Hãy tạo tài khoản (đăng ký) trước rồi mới cấp quyền.',
    en: 'No account is named "{username}". Create the account first (sign up), then grant it.',
  },
} as const satisfies Record<string, { vi: string; en: string }>;
