/**
 * Catalogue messages for one area of the service, merged into the one catalogue in
 * `../messages.ts`. Kept per area so parallel work on different areas never edits the same lines.
 */
export const datasciMessages = {
  model_refused: {
    vi: 'Mô hình bị từ chối: {reason}.',
    en: 'The model was refused: {reason}.',
  },
} as const satisfies Record<string, { vi: string; en: string }>;
