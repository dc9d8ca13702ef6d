import type { NewDescriptor } from '../../../shared/src/repos/descriptors.repo.js';
import type { Descriptor } from '../vision/engine.js';
import { vectorToBytes } from './bytes.js';
import { keypointCount } from '../vision/local-features.js';

/** What is kept of a photo's measured quality, with its keypoint count. */
export const qualityOf = (d: Descriptor) => ({
  sharpness: Math.round(d.quality.sharpness * 10) / 10,
  brightness: Math.round(d.quality.brightness * 10) / 10,
  keypoints: keypointCount(d.local),
});

/** The stored row of a photo's descriptor: the vectors as bytes, the quality kept, the models and subject as JSON. */
export const descriptorRow = (imageId: string, d: Descriptor): NewDescriptor => ({
  image_id: imageId,
  model: d.model.name,
  model_version: d.model.version,
  global: vectorToBytes(d.global),
  local: Buffer.from(d.local),
  quality: qualityOf(d),
  models: JSON.stringify(d.models),
  subject: d.subject ? JSON.stringify(d.subject) : null,
});
