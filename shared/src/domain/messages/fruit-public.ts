/**
 * What a public fruit lookup or scan says to a shopper about its answer (api/src/services/fruit-public.service.ts):
 * one whole sentence per verdict, so a client without its own words still tells the truth.
 */
export const fruitPublicMessages = {
  fruit_lookup_match: {
    vi: 'Ảnh khớp với quả "{name}" đã được công bố.',
    en: 'The photo matches the published fruit "{name}".',
  },
  fruit_lookup_uncertain: {
    vi: 'Chưa chắc chắn đây là quả nào: hãy so sánh ảnh các quả gần giống nhất rồi tự chọn, hoặc chụp lại rõ hơn.',
    en: 'It is not certain which fruit this is: compare the photos of the closest fruit and choose yourself, or take a clearer photo.',
  },
  fruit_lookup_no_match: {
    vi: 'Ảnh không khớp với quả nào đã được công bố; các quả bên dưới chỉ là gần giống nhất, ít khả năng là quả này.',
    en: 'The photo matches no published fruit; the fruit below are only the closest, and unlikely to be this one.',
  },
  fruit_lookup_none_published: {
    vi: 'Chưa có quả nào được công bố để so sánh.',
    en: 'No fruit has been published to compare with yet.',
  },
  fruit_lookup_not_fruit: {
    vi: 'Ảnh này không phải ảnh quả: hệ thống thấy một con vật trong ảnh. Hãy chụp gần vỏ quả.',
    en: "This photo is not a fruit: the system sees an animal in it. Take a close photo of the fruit's peel.",
  },
} as const;
