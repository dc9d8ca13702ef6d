/**
 * Catalogue messages for one area of the service, merged into the one catalogue in
 * `../messages.ts`. Kept per area so parallel work on different areas never edits the same lines.
 */
export const evidenceMessages = {} as const satisfies Record<string, { vi: string; en: string }>;
