/** Body limits from spec section 8. Decimal megabytes, so "a 21 MB file" is over the 20 MB limit however it is counted. */
export const LIMITS = {
  fileBytes: 20_000_000,
  imageBatchBytes: 64_000_000,
  videoBytes: 80_000_000,
  /** Multipart framing (boundaries, part headers) on top of the file bytes. */
  framingBytes: 64 * 1024,
} as const;
