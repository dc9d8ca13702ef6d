/**
 * Per-kind recognition settings. One engine serves trees, fruit and animals;
 * what differs between them is collected here so it can be tuned in one place.
 */

/** Kinds of subject the engine can identify. */
export type Kind = 'tree' | 'fruit' | 'animal';

/** Animal evidence channels (spec section 4). */
export type Channel = 'body' | 'face' | 'bio';

/** Quality thresholds applied at intake. */
export interface QualitySettings {
  /** Shorter side, in pixels, below which a photo is refused. */
  minSide: number;
  /** Variance of the Laplacian (grey 0-255, image scaled to 256 px) below which a photo is blurred. */
  minSharpness: number;
  /** Mean luminance (0-255) below which a photo is too dark. */
  minBrightness: number;
}

/** Everything the engine needs to know about one kind. */
export interface KindSettings {
  quality: QualitySettings;
  /** Longest side the image is scaled to (up or down) before keypoint extraction. */
  localSide: number;
  /** Maximum keypoints kept per image (strongest first). */
  maxKeypoints: number;
  /** Lowe ratio for the nearest / second-nearest descriptor distance. */
  ratio: number;
  /** Individuals kept from the global shortlist for keypoint verification. */
  shortlist: number;
  /** Enrolled images verified per shortlisted individual. */
  perIndividual: number;
  /**
   * Further individuals, after the first `shortlist`, verified on their single most similar image.
   * Cheap recall insurance for surfaces whose global look barely differs between individuals
   * (bark of one species), where the right one can rank past the main shortlist.
   */
  tailShortlist: number;
  /**
   * Whether to down-weight query keypoints whose inliers land on several
   * different individuals (repeated scene background).
   */
  backgroundGuard: boolean;
  /** Local features: AKAZE (OpenCV.js) or XFeat (learned, ONNX); chosen per kind from the measured ablation. */
  local: 'akaze' | 'xfeat';
  /**
   * The geometric check of the tentative matches: `usac` (OpenCV's USAC homography, pair by pair
   * on the CPU), `graph` (the batched RANSAC graph of robust-fit.ts, the whole shortlist in one
   * run on the engine's provider), or `auto`: the graph where it runs on CUDA, else USAC.
   */
  fit: 'auto' | 'usac' | 'graph';
  /** XFeat keypoints kept per image. */
  xfeatTopK: number;
  /** Most XFeat enlarges a photo smaller than `localSide` (`Infinity`: up to `localSide` whatever its size). */
  xfeatMaxUpscale: number;
  /** Lowest cosine similarity of an XFeat mutual-nearest-neighbour pair. */
  xfeatMinCos: number;
  /** Subject isolation: `crop` describes the detected animal (with a margin), `off` the whole photo. */
  subject: 'off' | 'crop';
  /** Margin added around the subject's box, as a share of its width and height. */
  subjectMargin: number;
  /** Lowest detector score for an animal box. */
  subjectMinScore: number;
  /** Enrolment refuses a photo in which the detector finds no animal (422 `no_animal_found`). */
  requireSubjectAtEnrol: boolean;
  /**
   * With an owner's fine-tuned backbone adopted, how the verified candidates are ordered:
   * `probability` (calibrated base evidence), `learned` (the backbone's cosine) or `both` (sum of
   * the two ranks). Probabilities, and so verdicts' thresholds, are the base evidence's either way.
   */
  learnedOrder: 'probability' | 'learned' | 'both';
}

const TREE: KindSettings = {
  learnedOrder: 'probability',
  quality: { minSide: 64, minSharpness: 20, minBrightness: 25 },
  localSide: 640,
  maxKeypoints: 800,
  ratio: 0.8,
  shortlist: 15,
  perIndividual: 4,
  tailShortlist: 8,
  backgroundGuard: false,
  local: 'akaze',
  fit: 'auto',
  xfeatTopK: 512,
  xfeatMaxUpscale: Infinity,
  xfeatMinCos: 0.82,
  subject: 'off',
  subjectMargin: 0.1,
  subjectMinScore: 0.2,
  requireSubjectAtEnrol: false,
};

const FRUIT: KindSettings = {
  ...TREE,
  quality: { minSide: 48, minSharpness: 15, minBrightness: 25 },
  // XFeat beat AKAZE on real Fuji peel, in accuracy and in time per photo, which a packing line
  // needs (benchmarks/results/fruit-local-apple-dev.json; benchmarks/results/README.md, "Recognition
  // v2: the ablation"). Bark (trees) has no real set yet: AKAZE stays.
  local: 'xfeat',
  // Fruit photos are often small crops (a packing line's, apple-dev's about 110 px): enlarged
  // more than about three times, XFeat found fewer true matches, at more cost
  // (benchmarks/results/README.md, "Small fruit photos described at most three times enlarged").
  xfeatMaxUpscale: 3,
};

const ANIMAL: KindSettings = {
  ...TREE,
  // Night frames of barns are dark on average yet sharp (part of holstein-dev's gallery has a mean
  // brightness under 20, all with detail: benchmarks/results/README.md, "Enrolment acceptance");
  // a black photo fails the sharpness gate as well.
  quality: { minSide: 48, minSharpness: 8, minBrightness: 6 },
  // Field photos carry hundreds of background keypoints; fewer keeps pair cost down.
  maxKeypoints: 500,
  // The global embedding sees the whole scene, so the right animal ranks lower: widen the shortlist.
  shortlist: 24,
  perIndividual: 3,
  tailShortlist: 0,
  backgroundGuard: true,
  // XFeat beat AKAZE on both dev sets; cropping to the detected animal did not pay (holstein-dev
  // faces are crops already and lost top-1; nyala-dev moved by noise): benchmarks/results/ablation.md.
  // The detector reports the box at enrolment but never gates it:
  // close-ups of coat or muzzle (what owners are asked for) are what it misses most (issue 24).
  local: 'xfeat',
  subject: 'off',
  requireSubjectAtEnrol: false,
  // With a fine-tuned backbone adopted, its cosine orders the verified candidates: it ranked better
  // than ordering by probability or by the sum of both ranks on both dev sets
  // (benchmarks/results/backbone-*.json; benchmarks/results/README.md, "The fine-tuned backbone").
  learnedOrder: 'learned',
};

const BY_KIND: Record<Kind, KindSettings> = { tree: TREE, fruit: FRUIT, animal: ANIMAL };

/** Settings for a kind; returns a copy so callers may override fields safely. */
export function settingsFor(kind: Kind, overrides: Partial<KindSettings> = {}): KindSettings {
  return { ...BY_KIND[kind], ...overrides };
}

/** Which evidence an identify request uses. */
export interface EvidenceSelection {
  global: boolean;
  local: boolean;
}

/**
 * Maps animal `channels` to evidence. `body` and `face` are both surface
 * patterns, matched with global and local evidence; `bio` (biometric
 * keypoints such as muzzle ridges) relies on local geometry only. Non-animal
 * kinds always use both.
 */
export function evidenceFor(kind: Kind, channels?: readonly Channel[]): EvidenceSelection {
  if (kind !== 'animal' || !channels || channels.length === 0) return { global: true, local: true };
  const wantsPattern = channels.includes('body') || channels.includes('face');
  return { global: wantsPattern, local: true };
}
