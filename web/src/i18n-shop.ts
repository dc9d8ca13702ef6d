/**
 * Texts of the identify screen's "another angle" (one subject per query) and of the shopper's
 * fruit lookup (issue 39), merged into i18n.ts.
 */
export const SHOP_TEXT = {
  query_photos: ['Câu hỏi này gồm {n} ảnh của cùng một cá thể.', 'This query holds {n} photo(s) of one and the same individual.'],
  another_angle: ['Thêm ảnh góc khác của chính cá thể này', 'Add another angle of this same one'],
  another_angle_hint: [
    'Chỉ thêm ảnh của đúng cá thể vừa hỏi: ảnh mới được gửi cùng các ảnh trước như một câu hỏi. Muốn hỏi cá thể khác, hãy chụp ở trên.',
    'Add only photos of this very individual: they are sent with the earlier ones as one query. To ask about another one, take its photo above.',
  ],
  next_subject_hint: [
    'Ô chọn ảnh đã trống lại: ảnh chụp tiếp theo là một câu hỏi mới.',
    'The photo picker is empty again: the next photo you take starts a new query.',
  ],
  shop_link: ['Tra cứu quả (không cần tài khoản)', 'Look up a fruit (no account needed)'],
  shop_title: ['Quả này từ đâu?', 'Where is this fruit from?'],
  shop_intro: [
    'Chụp hoặc chọn ảnh quả để xem các quả đã được công bố giống nhất, hoặc nhập mã in trên tem. Không cần tài khoản; ảnh không được lưu lại.',
    'Take or choose a photo of the fruit to see the closest published fruit, or type the code printed on its label. No account needed; the photo is not kept.',
  ],
  shop_photo: ['Chụp hoặc chọn ảnh quả', 'Take or choose a fruit photo'],
  shop_look: ['Tra cứu', 'Look up'],
  shop_code: ['Mã truy xuất trên tem', 'Traceability code on the label'],
  shop_open_code: ['Mở trang của mã này', "Open this code's page"],
  shop_need_photo: ['Hãy chụp hoặc chọn một ảnh quả trước.', 'Take or choose a fruit photo first.'],
  shop_need_code: ['Hãy nhập mã in trên tem.', 'Type the code printed on the label.'],
  shop_closest: ['Các quả gần giống nhất', 'The closest fruit'],
  conf_match: ['đúng quả này', 'this is the fruit'],
  conf_possible: ['có thể — hãy so sánh ảnh', 'possible — compare the photos'],
  conf_unlikely: ['ít khả năng', 'unlikely'],
  shop_tree_page: ['Trang công khai của cây', "The tree's public page"],
  shop_no_tree: ['Cây của quả này chưa được công bố.', "This fruit's tree is not published."],
  shop_back: ['Đăng nhập', 'Sign in'],
} as const satisfies Record<string, readonly [string, string]>;
