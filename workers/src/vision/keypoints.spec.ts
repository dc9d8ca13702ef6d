import { describe, expect, it } from 'vitest';
import { packFeatures, unpackFeatures, type LocalFeatures } from './keypoints.js';

const features: LocalFeatures = {
  width: 640,
  height: 480,
  xy: Float32Array.from([0, 0, 12.5, 7.125, 639.875, 479.5]),
  desc: Uint8Array.from({ length: 3 * 61 }, (_, i) => (i * 37) & 255),
  descBytes: 61,
  count: 3,
};

describe('keypoint serialisation', () => {
  it('round-trips through the compact stored format', () => {
    const bytes = packFeatures(features);
    expect(bytes.byteLength).toBe(12 + 3 * (4 + 61));
    const back = unpackFeatures(bytes);
    expect(back).toMatchObject({ width: 640, height: 480, count: 3, descBytes: 61 });
    expect(Array.from(back.xy)).toEqual(Array.from(features.xy));
    expect(Array.from(back.desc)).toEqual(Array.from(features.desc));
  });

  it('rejects foreign or truncated buffers', () => {
    expect(() => unpackFeatures(new Uint8Array([1, 2, 3]))).toThrow();
    expect(() => unpackFeatures(packFeatures(features).subarray(0, 40))).toThrow(/truncated/);
  });
});
