/** What reading a photo gave: the engine is missing (`unavailable`) or it read some text (maybe none). */
export type OcrRead = { state: 'unavailable' } | { state: 'read'; text: string };

/** Reads printed text (Vietnamese and English) from a packaging photo. */
export interface OcrEngine {
  readonly kind: string;
  /** Never throws for an engine that is missing or fails: that is `unavailable`. */
  read(image: Buffer): Promise<OcrRead>;
}
