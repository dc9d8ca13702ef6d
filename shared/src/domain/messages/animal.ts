/**
 * Catalogue messages for one area of the service, merged into the one catalogue in
 * `../messages.ts`. Kept per area so parallel work on different areas never edits the same lines.
 */
export const animalMessages = {
  animal_detect_photo_needed: {
    vi: 'Trang trại này nuôi nhiều loài, nên cần gửi một ảnh con vật để đoán loài.',
    en: 'This farm keeps several species, so send one photo of the animal to tell which.',
  },
} as const satisfies Record<string, { vi: string; en: string }>;
