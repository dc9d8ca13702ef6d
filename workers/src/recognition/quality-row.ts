import type { Descriptor } from '../vision/engine.js';
import { keypointCount } from '../vision/local-features.js';

/** What is kept of a photo's measured quality, with its keypoint count. */
export const qualityOf = (d: Descriptor) => ({
  sharpness: Math.round(d.quality.sharpness * 10) / 10,
  brightness: Math.round(d.quality.brightness * 10) / 10,
  keypoints: keypointCount(d.local),
});
