import type { Kind } from '../../../shared/src/domain/jobs.js';
import { decodeImage, measureQuality, UnusableImageError } from '../vision/intake.js';
import { loadEmbedder, type Embedder } from '../vision/embed.js';
import { extractFeatures, packFeatures } from '../vision/keypoints.js';
import { settingsFor } from '../vision/settings.js';
import type { Describer, Descriptor } from './ports.js';

/**
 * The vision engine behind the `Describer` port: decode (EXIF applied), refuse unusable photos,
 * embed with the ONNX model, extract local keypoints. Loaded once per process.
 */
export async function createDescriber(embedder?: Embedder): Promise<Describer & { provider: string }> {
  const e = embedder ?? (await loadEmbedder());
  return {
    modelVersion: `${e.model.name}@${e.model.version}`,
    provider: e.provider,
    async describe(bytes: Buffer, { kind }: { kind: Kind }): Promise<Descriptor> {
      const s = settingsFor(kind);
      const img = await decodeImage(bytes);
      const quality = await measureQuality(img, s.quality);
      if (quality.reasons.length) throw new UnusableImageError(quality.reasons, quality);
      const [global] = await e.embed([img]);
      const local = await extractFeatures(img, { side: s.localSide, maxKeypoints: s.maxKeypoints });
      return {
        model: e.model,
        global: global!,
        local: packFeatures(local),
        quality: { sharpness: quality.sharpness, brightness: quality.brightness, keypoints: local.count },
        width: img.width,
        height: img.height,
      };
    },
  };
}
