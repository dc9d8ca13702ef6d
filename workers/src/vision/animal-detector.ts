/**
 * The animal detector behind `/api/animal/detect` and `/api/animal/scan`, as one small interface
 * so the model behind it can be swapped without touching the species rules:
 *
 * ```ts
 * const detector = await animalDetector();
 * const dets = await detector.detect(jpegBytes); // [{ label: 'cow', score: 0.83, box }], best first
 * ```
 * Labels are COCO class names; the species catalogue maps species to them (`detector_class`).
 * Errors: `detect` throws the intake's `UndecodableImageError` (unrecoverable) for bytes that are
 * not an image, and the registry's integrity error when the model file is not the manifest's.
 */
import type { LabelledDetection } from '../../../shared/src/domain/animal-species.js';
import { loadDetector } from './detector.js';

/** COCO animals, 14 bird … 23 giraffe: birds stay in, the catalogue has poultry. */
export const COCO_ANIMAL_IDS: readonly number[] = [14, 15, 16, 17, 18, 19, 20, 21, 22, 23];

export interface AnimalDetector {
  /** Model name and version, reported with every decision. */
  readonly model: { name: string; version: string };
  /** Animals in the photo, best score first; other COCO objects are left out. */
  detect(bytes: Uint8Array): Promise<LabelledDetection[]>;
}

/** Lowest score kept; the species rules apply their own thresholds above it. */
const MIN_SCORE = 0.1;
const round = (x: number) => Math.round(x * 1e4) / 1e4;

/** The registry's detector (YOLOX-nano COCO, workers/src/vision/detector.ts), loaded once per process. */
export async function animalDetector(): Promise<AnimalDetector> {
  const det = await loadDetector();
  return {
    model: det.model,
    async detect(bytes) {
      const found = await det.detect(bytes, { classes: COCO_ANIMAL_IDS, minScore: MIN_SCORE });
      return found.map((d) => ({
        label: d.label,
        score: round(d.score),
        box: { x: Math.round(d.box.x), y: Math.round(d.box.y), width: Math.round(d.box.w), height: Math.round(d.box.h) },
      }));
    },
  };
}
