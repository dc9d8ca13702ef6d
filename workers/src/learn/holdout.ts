/**
 * Leave-one-out identification on the owner's own gallery, the test a new metric must pass
 * before it is used: each photo whose individual has another photo is identified against every
 * other photo (nearest individual by best cosine), and top-1 is counted.
 *
 * A candidate recipe is scored by k-fold cross-validation: the metric scoring a photo was
 * trained without it (nor any photo of its fold), so the figure is an honest estimate for new
 * photos. The current model is scored on the same photos with its fixed weights; it may have
 * seen them in training, which only favours it, so adoption errs on the side of keeping it.
 */
import { project, trainMetric, type Labelled, type LinearMetric, type TrainOptions } from './metric.js';

export interface HoldoutScore {
  /** Photos that had another photo of their individual (the ones scored). */
  evaluated: number;
  top1: number;
}

/** Top-1 of leave-one-out nearest-individual search over `vectors` (already in the compared space). */
export function leaveOneOutTop1(vectors: readonly Float32Array[], labels: readonly string[], only?: ReadonlySet<number>): HoldoutScore {
  const count = new Map<string, number>();
  for (const l of labels) count.set(l, (count.get(l) ?? 0) + 1);
  let evaluated = 0;
  let hits = 0;
  for (let i = 0; i < vectors.length; i++) {
    if ((only && !only.has(i)) || count.get(labels[i]!)! < 2) continue;
    let best = -Infinity;
    let bestLabel = '';
    for (let j = 0; j < vectors.length; j++) {
      if (j === i) continue;
      const s = dot(vectors[i]!, vectors[j]!);
      if (s > best) {
        best = s;
        bestLabel = labels[j]!;
      }
    }
    evaluated++;
    if (bestLabel === labels[i]) hits++;
  }
  return { evaluated, top1: evaluated ? hits / evaluated : 0 };
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Scores a fixed metric (or the raw embedding when `metric` is null). */
export function scoreMetric(samples: readonly Labelled[], metric: LinearMetric | null): HoldoutScore {
  const vectors = samples.map((s) => (metric ? project(metric, s.vector) : s.vector));
  return leaveOneOutTop1(
    vectors,
    samples.map((s) => s.label),
  );
}

/**
 * k-fold estimate for a recipe: each fold's photos are scored with a metric trained on the other
 * folds; the folds are assigned round-robin within each individual, so every fold sees most
 * individuals in training.
 */
export async function crossValidate(samples: readonly Labelled[], opts: TrainOptions & { folds?: number } = {}): Promise<HoldoutScore> {
  const folds = Math.max(2, opts.folds ?? 5);
  const seen = new Map<string, number>();
  const foldOf = samples.map((s) => {
    const n = seen.get(s.label) ?? 0;
    seen.set(s.label, n + 1);
    return (n + hashLabel(s.label)) % folds;
  });
  let evaluated = 0;
  let hits = 0;
  for (let f = 0; f < folds; f++) {
    const train = samples.filter((_, i) => foldOf[i] !== f);
    if (new Set(train.map((s) => s.label)).size < 2) continue;
    const m = await trainMetric(train, opts);
    const vectors = samples.map((s) => project(m, s.vector));
    const only = new Set(foldOf.flatMap((x, i) => (x === f ? [i] : [])));
    const r = leaveOneOutTop1(
      vectors,
      samples.map((s) => s.label),
      only,
    );
    evaluated += r.evaluated;
    hits += r.top1 * r.evaluated;
  }
  return { evaluated, top1: evaluated ? hits / evaluated : 0 };
}

function hashLabel(label: string): number {
  let h = 0;
  for (let i = 0; i < label.length; i++) h = (h * 31 + label.charCodeAt(i)) >>> 0;
  return h;
}
