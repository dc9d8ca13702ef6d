/**
 * Frame selection for video queries: keep sharp, distinct frames, at most N,
 * to be fused by `RecognitionEngine.identify` as one multi-image query.
 * Frame extraction itself (ffmpeg) lives in workers/src/media.
 */
import { cosine } from './embed.js';
import type { Descriptor } from './engine.js';

export interface FrameSelectOptions {
  /** Maximum frames kept. */
  max: number;
  /** Frames whose global similarity to an already kept frame is above this are near-duplicates. */
  maxSimilarity?: number;
}

/**
 * Picks frames sharpest first, skipping unusable ones and near-duplicates of
 * frames already kept. Returns indices into `frames`, in the original order.
 */
export function selectFrames(frames: readonly Descriptor[], opts: FrameSelectOptions): number[] {
  const limit = opts.maxSimilarity ?? 0.985;
  const order = frames
    .map((f, i) => ({ f, i }))
    .filter(({ f }) => f.quality.reasons.length === 0)
    .sort((a, b) => b.f.quality.sharpness - a.f.quality.sharpness);
  const kept: { f: Descriptor; i: number }[] = [];
  for (const cand of order) {
    if (kept.length >= opts.max) break;
    if (kept.some((k) => cosine(k.f.global, cand.f.global) > limit)) continue;
    kept.push(cand);
  }
  return kept.map((k) => k.i).sort((a, b) => a - b);
}
