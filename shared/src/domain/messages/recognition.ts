/**
 * Catalogue messages for one area of the service, merged into the one catalogue in
 * `../messages.ts`. Kept per area so parallel work on different areas never edits the same lines.
 */
export const recognitionMessages = {
  no_animal_found: {
    vi: 'Không tìm thấy con vật nào trong ảnh "{filename}"; hãy chụp lại sao cho thấy rõ con vật.',
    en: 'No animal was found in image "{filename}"; please retake it with the animal clearly in view.',
  },
} as const satisfies Record<string, { vi: string; en: string }>;
