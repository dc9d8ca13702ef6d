/**
 * A deterministic recognition engine for the test suite's stories that are not about recognition
 * (timelines, grants, care, provenance, accounts, ...): the real RecognitionEngine with its
 * decoding, quality gate, subject isolation, ranking and verdicts, but
 * - the global embedding is a unit vector derived from a SHA-256 of the decoded pixels (the same
 *   photo gives the same vector; any other photo an unrelated one), and
 * - the local features are an empty keypoint buffer, so verification finds no evidence.
 * No ONNX session and no OpenCV is loaded for either. Identifying a photo with it is never a
 * statement about recognition quality; the recognition, enrolment, video, survey, learning and
 * batch suites keep the real engine.
 *
 * Chosen in one place only, `chooseEngine` (workers/src/vision/choose-engine.ts), when the
 * configuration says MARKLESS_TEST_ENGINE=deterministic, which it refuses outside vitest.
 */
import { createHash } from 'node:crypto';
import { RecognitionEngine, type Descriptor, type DescribeOptions, type LocalVerifier, type StageTimings } from '../engine.js';
import type { Embedder } from '../embed.js';
import { decodeImage, measureQuality, UnusableImageError, type DecodedImage } from '../intake.js';
import { packFeatures } from '../keypoints.js';
import { ModelRegistry } from '../registry.js';
import { settingsFor } from '../settings.js';
import { isolateSubject } from '../subject.js';
import { mulberry32 } from './synthetic.js';

/** The model every deterministic descriptor names (never a real model's name). */
export const DETERMINISTIC_MODEL = { name: 'markless-deterministic-test', version: 'sha256-1' } as const;
/** Dimension of the hash-derived global embedding. */
export const DETERMINISTIC_DIM = 64;

/** A unit vector of DETERMINISTIC_DIM derived from the image's size and pixels. */
export function hashEmbedding(img: DecodedImage): Float32Array {
  const h = createHash('sha256').update(`${img.width}x${img.height}:`).update(img.rgb).digest();
  const v = new Float32Array(DETERMINISTIC_DIM);
  // Four seeded streams, one per quarter of the digest, so all 256 bits count.
  for (let part = 0; part < 4; part++) {
    const rnd = mulberry32(h.readUInt32LE(part * 4) ^ h.readUInt32LE(16 + part * 4));
    for (let i = part; i < DETERMINISTIC_DIM; i += 4) v[i] = rnd() * 2 - 1;
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

/** An empty keypoint buffer of the stored format (no keypoints: no local evidence). */
function emptyLocal(img: DecodedImage): Uint8Array {
  return packFeatures({
    width: Math.min(img.width, 0xffff),
    height: Math.min(img.height, 0xffff),
    xy: new Float32Array(0),
    desc: new Uint8Array(0),
    descBytes: 61,
    count: 0,
  });
}

/** The only `Embedder` members the engine reads; `embed` is never reached (describeMany is replaced). */
const hashEmbedder = {
  model: { ...DETERMINISTIC_MODEL },
  dim: DETERMINISTIC_DIM,
  provider: 'cpu',
  embed: (images: DecodedImage[]) => Promise.resolve(images.map(hashEmbedding)),
} as unknown as Embedder;

/** Verification without keypoints: no image gets local evidence. */
const noLocalEvidence: LocalVerifier = () => Promise.resolve(new Map());

/** The deterministic engine (see the file comment). */
export async function createDeterministicEngine(): Promise<RecognitionEngine> {
  // An empty registry: the engine's identity names no detector or keypoint model it does not run.
  const base = await RecognitionEngine.create({ embedder: hashEmbedder, calibration: {}, registry: new ModelRegistry([]) });
  const self: RecognitionEngine = Object.create(base, {
    verifier: { value: noLocalEvidence, writable: true },
    describeMany: {
      value: async (items: readonly { bytes: Uint8Array; opts: DescribeOptions }[], timings?: StageTimings) => {
        const t0 = performance.now();
        const out = await Promise.all(
          items.map(async ({ bytes, opts }): Promise<Descriptor | Error> => {
            try {
              const s = settingsFor(opts.kind, opts.settings);
              const img = await decodeImage(bytes);
              const quality = await measureQuality(img, s.quality);
              if ((opts.enforceQuality ?? true) && quality.reasons.length > 0) throw new UnusableImageError(quality.reasons, quality);
              // Subject isolation stays real: a caller's box, a required or reported animal.
              const { image, subject } = await isolateSubject(img, s, opts.subject);
              return {
                model: base.model,
                models: [{ ...DETERMINISTIC_MODEL }],
                subject,
                global: hashEmbedding(image),
                local: emptyLocal(image),
                quality,
                width: img.width,
                height: img.height,
              };
            } catch (err) {
              return err as Error;
            }
          }),
        );
        if (timings) timings.decode = (timings.decode ?? 0) + (performance.now() - t0) / 1000;
        return out;
      },
    },
  });
  return self;
}
