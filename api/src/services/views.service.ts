import type { Kind } from '../../../shared/src/domain/jobs.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { ViewRow, ViewsRepo } from '../../../shared/src/repos/views.repo.js';
import type { TreesService } from './trees.service.js';

/**
 * Measured repeatability of one individual's views: how much of each part of the surface is
 * found again when the same individual is photographed again. Pure functions over the stored
 * descriptors (global embeddings, packed local keypoints), so the same views always give the
 * same numbers and the numbers change only when the views do.
 */

/** Local keypoints as stored by the vision engine (format 1, see workers/src/vision/keypoints.ts). */
export interface Keypoints {
  width: number;
  height: number;
  /** y coordinate of each keypoint, in pixels of the image the keypoints came from. */
  ys: Float32Array;
  desc: Uint8Array;
  descBytes: number;
  count: number;
}

/** A band word of the contract: cao (high), vừa (medium), thấp (low). */
export type Band = 'cao' | 'vừa' | 'thấp';

/** One measured part. `score` is in [0, 1]; `samples` is what it was measured on. */
export interface PartMeasure {
  part: 'upper' | 'middle' | 'lower' | 'overall';
  label_vi: string;
  score: number;
  band: Band;
  samples: number;
}

const HEADER = 12;
/** Strongest keypoints used per view: they are stored strongest first. Bounds the cost at O(views² · K²). */
export const KEYPOINTS_PER_VIEW = 150;
/** Views compared pairwise for the regions, spread over the tree's history; a GET must stay fast at 64 views. */
export const MAX_COMPARED_VIEWS = 10;
/** Lowe's ratio test: a keypoint "repeats" only when its best match clearly beats the second best. */
const RATIO = 0.7;

/** Unpack the stored byte layout; null for anything that is not format 1, so a new format is skipped, not misread. */
export function unpackKeypoints(bytes: Uint8Array | null | undefined): Keypoints | null {
  if (!bytes || bytes.byteLength < HEADER || bytes[0] !== 0x4d || bytes[1] !== 0x4b || bytes[2] !== 1) return null;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const descBytes = bytes[3]!;
  const total = dv.getUint32(4, true);
  if (descBytes === 0 || bytes.byteLength !== HEADER + total * (4 + descBytes)) return null;
  const count = Math.min(total, KEYPOINTS_PER_VIEW);
  const ys = new Float32Array(count);
  for (let i = 0; i < count; i++) ys[i] = dv.getUint16(HEADER + (i * 2 + 1) * 2, true) / 8;
  const start = HEADER + total * 4;
  const desc = bytes.slice(start, start + count * descBytes);
  return { width: dv.getUint16(8, true), height: dv.getUint16(10, true), ys, desc, descBytes, count };
}

const POPCOUNT = Uint8Array.from({ length: 256 }, (_, i) => {
  let n = 0;
  for (let v = i; v; v >>= 1) n += v & 1;
  return n;
});

function hamming(a: Uint8Array, ai: number, b: Uint8Array, bi: number, len: number): number {
  let d = 0;
  for (let k = 0; k < len; k++) d += POPCOUNT[a[ai + k]! ^ b[bi + k]!]!;
  return d;
}

/** Best and second-best distances from each keypoint of `a` to `b`, and of `b` to `a`, in one pass. */
function nearest(a: Keypoints, b: Keypoints): { ab: Float64Array; ba: Float64Array } {
  const ab = new Float64Array(a.count * 2).fill(Infinity);
  const ba = new Float64Array(b.count * 2).fill(Infinity);
  const keep = (arr: Float64Array, i: number, d: number) => {
    if (d < arr[i * 2]!) {
      arr[i * 2 + 1] = arr[i * 2]!;
      arr[i * 2] = d;
    } else if (d < arr[i * 2 + 1]!) arr[i * 2 + 1] = d;
  };
  for (let i = 0; i < a.count; i++) {
    for (let j = 0; j < b.count; j++) {
      const d = hamming(a.desc, i * a.descBytes, b.desc, j * b.descBytes, a.descBytes);
      keep(ab, i, d);
      keep(ba, j, d);
    }
  }
  return { ab, ba };
}

const passes = (best: Float64Array, i: number) => best[i * 2]! < RATIO * best[i * 2 + 1]!;

/** For every view, which of its keypoints find a clear match in at least one other view. */
export function repeatedKeypoints(views: Keypoints[]): Uint8Array[] {
  const hit = views.map((v) => new Uint8Array(v.count));
  for (let x = 0; x < views.length; x++) {
    for (let y = x + 1; y < views.length; y++) {
      const a = views[x]!;
      const b = views[y]!;
      if (a.descBytes !== b.descBytes) continue;
      const { ab, ba } = nearest(a, b);
      for (let i = 0; i < a.count; i++) if (passes(ab, i)) hit[x]![i] = 1;
      for (let j = 0; j < b.count; j++) if (passes(ba, j)) hit[y]![j] = 1;
    }
  }
  return hit;
}

/** Mean pairwise cosine similarity of L2-normalised embeddings (all views of one model version). */
export function meanPairwiseCosine(vectors: Float32Array[]): { score: number; pairs: number } {
  let sum = 0;
  let pairs = 0;
  for (let x = 0; x < vectors.length; x++) {
    for (let y = x + 1; y < vectors.length; y++) {
      const a = vectors[x]!;
      const b = vectors[y]!;
      if (a.length !== b.length) continue;
      let dot = 0;
      for (let k = 0; k < a.length; k++) dot += a[k]! * b[k]!;
      sum += dot;
      pairs++;
    }
  }
  return { score: pairs ? sum / pairs : 0, pairs };
}

/** Band thresholds, per measure: [lower bound of cao, lower bound of vừa]. */
// Calibrated on generated bark: re-shot views of one surface measure 0.52-0.85 (local) and
// 0.81-0.90 (overall); views of unrelated surfaces 0-0.06 and 0.75-0.78. "cao" starts a little
// below the lowest re-shot value, "thấp" well above the highest unrelated one.
export const BAND_THRESHOLDS = { local: [0.45, 0.2], overall: [0.85, 0.8] } as const;

export function bandOf(score: number, [high, mid]: readonly [number, number]): Band {
  return score >= high ? 'cao' : score >= mid ? 'vừa' : 'thấp';
}

const REGIONS = [
  { part: 'upper', label_vi: 'vùng vỏ phía trên', from: 0, to: 1 / 3 },
  { part: 'middle', label_vi: 'vùng vỏ ở giữa', from: 1 / 3, to: 2 / 3 },
  { part: 'lower', label_vi: 'vùng vỏ phía dưới', from: 2 / 3, to: 1.0001 },
] as const;

/** An animal's surface is its coat (lông), not bark or peel (vỏ); the words differ, the measure does not. */
const WORDS: Record<Kind, { surface: string; one: string }> = {
  tree: { surface: 'vỏ', one: 'cây' },
  fruit: { surface: 'vỏ', one: 'quả' },
  animal: { surface: 'lông', one: 'con vật' },
};

/** Repeatability of the upper, middle and lower thirds of the frame, from the keypoints found again. */
export function regionRepeatability(views: Keypoints[], kind: Kind = 'tree'): PartMeasure[] {
  const hit = repeatedKeypoints(views);
  return REGIONS.flatMap((r) => {
    let total = 0;
    let repeated = 0;
    views.forEach((v, x) => {
      for (let i = 0; i < v.count; i++) {
        const rel = v.ys[i]! / Math.max(1, v.height);
        if (rel < r.from || rel >= r.to) continue;
        total++;
        repeated += hit[x]![i]!;
      }
    });
    if (total === 0) return [];
    const score = repeated / total;
    return [
      {
        part: r.part,
        label_vi: r.label_vi.replace('vỏ', WORDS[kind].surface),
        score,
        band: bandOf(score, BAND_THRESHOLDS.local),
        samples: total,
      },
    ];
  });
}

/** The overall look of the individual, from its global embeddings. */
export function overallRepeatability(vectors: Float32Array[]): PartMeasure | null {
  const { score, pairs } = meanPairwiseCosine(vectors);
  if (!pairs) return null;
  return { part: 'overall', label_vi: 'dáng tổng thể', score, band: bandOf(score, BAND_THRESHOLDS.overall), samples: pairs };
}

const fmt = (m: PartMeasure) => `${m.label_vi} (${m.band})`;
const BAND_RANK: Record<Band, number> = { cao: 2, vừa: 1, thấp: 0 };

/**
 * One Vietnamese sentence naming what re-photographs consistently and what varies. The split
 * follows the measured bands; when every part sits in one band, the sentence says so instead
 * of inventing a contrast.
 */
export function sentenceVi(measures: PartMeasure[], views: number, kind: Kind = 'tree'): string {
  if (views < 2 || measures.length === 0)
    return `Mới có ${views} ảnh dùng được: cần ít nhất 2 ảnh của cùng ${WORDS[kind].one} để đo độ lặp lại.`;
  const sorted = [...measures].sort((a, b) => BAND_RANK[b.band] - BAND_RANK[a.band] || b.score - a.score);
  const top = BAND_RANK[sorted[0]!.band];
  const steady = sorted.filter((m) => BAND_RANK[m.band] === top);
  const varying = sorted.filter((m) => BAND_RANK[m.band] < top);
  const head = `Qua ${views} ảnh, `;
  const same = { 2: 'mọi phần đều chụp lại ổn định', 1: 'mọi phần lặp lại ở mức vừa', 0: 'mọi phần đều thay đổi nhiều khi chụp lại' }[top];
  if (!varying.length) return `${head}${same}: ${steady.map(fmt).join(', ')}.`;
  return `${head}chụp lại ổn định nhất là ${steady.map(fmt).join(', ')}; thay đổi nhiều hơn là ${varying.map(fmt).join(', ')}.`;
}

/** One stored view as clients see it: never the embeddings themselves. */
export interface TreeView {
  image_id: string;
  cid: string;
  source: string;
  in_record: boolean;
  width: number | null;
  height: number | null;
  quality: Record<string, unknown>;
  model_version: string | null;
  created_at: string;
}

/** What `describe=1` adds: the sentence, and the measurements it was built from. */
export interface ViewsDescription {
  features_vi: string;
  features: PartMeasure[];
  views_measured: number;
}

/** At most `n` items, evenly spaced, so early and late photos are both represented. */
function spread<T>(items: readonly T[], n: number): readonly T[] {
  if (items.length <= n) return items;
  return Array.from({ length: n }, (_, i) => items[Math.round((i * (items.length - 1)) / (n - 1))]!);
}

/** bytea to float32, copying so the view is aligned whatever the driver's buffer offset. */
const toFloats = (b: Uint8Array) => new Float32Array(Uint8Array.from(b).buffer);

/** Measure the views that share the most common model version: vectors of different models do not compare. */
export function describeViews(rows: readonly ViewRow[], kind: Kind = 'tree'): ViewsDescription {
  const counts = new Map<string, number>();
  for (const r of rows) if (r.model_version && r.global) counts.set(r.model_version, (counts.get(r.model_version) ?? 0) + 1);
  const version = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const usable = rows.filter((r) => r.model_version === version && r.global);
  const keypoints = spread(usable, MAX_COMPARED_VIEWS)
    .map((r) => unpackKeypoints(r.local))
    .filter((k): k is Keypoints => k !== null);
  const overall = overallRepeatability(usable.map((r) => toFloats(r.global!)));
  const features = [...(keypoints.length >= 2 ? regionRepeatability(keypoints, kind) : []), ...(overall ? [overall] : [])];
  return { features_vi: sentenceVi(features, usable.length, kind), features, views_measured: usable.length };
}

/** What the views service uses. */
export interface ViewsDeps {
  db: Queryable;
  views: Pick<ViewsRepo, 'ofIndividual'>;
  /** The access check (trees.service): a missing individual and another account's are the same 404. */
  trees: Pick<TreesService, 'access'>;
}

/** The views (photos) of one tree, and on request a description of how repeatable they are. */
export function createViewsService(deps: ViewsDeps) {
  const { db } = deps;
  return {
    /** Views of one individual of `kind` the caller may read (own, or shared through a grant). */
    async list(
      callerId: string,
      treeId: string,
      describe: boolean,
      kind: Kind = 'tree',
    ): Promise<{ tree_id: string; views: TreeView[] } & Partial<ViewsDescription>> {
      const tree = await deps.trees.access(callerId, treeId, 'read', kind);
      const rows = await deps.views.ofIndividual(db, tree.id);
      const views = rows.map((v) => ({
        image_id: v.image_id,
        cid: v.cid,
        source: v.source,
        in_record: v.in_record,
        width: v.width,
        height: v.height,
        quality: v.quality ?? {},
        model_version: v.model_version,
        created_at: v.created_at.toISOString(),
      }));
      return { tree_id: tree.id, views, ...(describe ? describeViews(rows, kind) : {}) };
    },
  };
}

export type ViewsService = ReturnType<typeof createViewsService>;
