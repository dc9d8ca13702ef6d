/**
 * What a query and one candidate individual share, the input of both the logistic calibration
 * (calibrate.ts) and the fused model (fusion.ts).
 */
export interface Evidence {
  /** Best cosine similarity of the global embeddings. */
  global: number;
  /** Best guarded inlier score (background-weighted inlier count). */
  local: number;
  /** Global similarity minus the best other candidate's. */
  globalMargin: number;
  /** log1p(local) minus log1p of the best other candidate's local score. */
  localMargin: number;
  /** Spatial spread of the inliers over the query (0..1). */
  spread: number;
  /** Best cosine in the owner's fine-tuned backbone space, when one searched the gallery. */
  learned?: number;
  /** `learned` minus the best other candidate's. */
  learnedMargin?: number;
  /** The individual's place in the gallery search's shortlist (0 = first), best over the query photos. */
  rank?: number;
}
