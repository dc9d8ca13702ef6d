/**
 * Multi-object tracking scores against ground truth, by their published definitions:
 * - CLEAR-MOT (Bernardin & Stiefelhagen 2008): per frame, keep last frame's GT↔track pairs that
 *   still overlap (IoU ≥ 0.5), assign the rest by Hungarian on IoU; a GT object whose track
 *   differs from its previous one is an ID switch. MOTA = 1 − (FN + FP + IDSW) / GT.
 * - IDF1 (Ristani et al. 2016): one global GT-id ↔ track-id bijection maximising the frames where
 *   both are present and overlap; IDF1 = 2·IDTP / (GT detections + predicted detections).
 * - Ignored animals (`FrameBoxes.ignored`): animals in the frame but too hidden to be scored (the
 *   renderer's rule: less than half visible). As TrackEval does for MOTChallenge's distractor
 *   classes and KITTI's occluded or truncated objects, each frame's predicted boxes are first
 *   matched one-to-one (Hungarian, IoU ≥ 0.5) against the scored and the ignored boxes together;
 *   a prediction matched to an ignored box is dropped before scoring: neither a true positive nor
 *   a false positive, and not counted among IDF1's predicted detections. An ignored animal that
 *   nobody finds is no miss.
 */
import munkres from 'munkres';
import { iou, type Box } from '../../workers/src/survey/tracker.js';

export interface FrameBoxes {
  ids: (number | string)[];
  boxes: Box[];
  /** Ground truth only: boxes of animals present but not scored (see above). */
  ignored?: Box[];
}

/** One frame's errors, and the predictions dropped on ignored animals. */
export interface FrameErrors {
  fp: number;
  fn: number;
  idsw: number;
  ignored: number;
}

export interface MotScores {
  gt: number;
  fp: number;
  fn: number;
  id_switches: number;
  mota: number;
  idtp: number;
  idf1: number;
  mapping: Map<string, string>;
  /** Predicted boxes dropped because they matched an ignored animal. */
  ignored: number;
  frames: FrameErrors[];
}

const THR = 0.5;

export function motScores(gt: FrameBoxes[], pred: FrameBoxes[]): MotScores {
  let nGt = 0;
  let nPred = 0;
  let fp = 0;
  let fn = 0;
  let idsw = 0;
  let ignored = 0;
  const frames: FrameErrors[] = [];
  const last = new Map<string, string>(); // GT id → the track it was last matched to
  const pairFrames = new Map<string, number>(); // "g|t" → frames matched (for IDF1)
  for (let f = 0; f < gt.length; f++) {
    const G = gt[f] ?? { ids: [], boxes: [] };
    const P = withoutIgnored(G, pred[f] ?? { ids: [], boxes: [] });
    const dropped = (pred[f]?.ids.length ?? 0) - P.ids.length;
    ignored += dropped;
    const before = { fp, fn, idsw };
    nGt += G.ids.length;
    nPred += P.ids.length;
    // IDF1 counts every overlapping pair per frame, matched one-to-one per frame by Hungarian.
    for (const [gi, pi] of hungarian(G.boxes, P.boxes)) {
      const k = `${G.ids[gi]}|${P.ids[pi]}`;
      pairFrames.set(k, (pairFrames.get(k) ?? 0) + 1);
    }
    // CLEAR-MOT: keep last frame's correspondences when still valid.
    const usedG = new Set<number>();
    const usedP = new Set<number>();
    const matched: [number, number][] = [];
    for (let gi = 0; gi < G.ids.length; gi++) {
      const t = last.get(String(G.ids[gi]));
      const pi = t === undefined ? -1 : P.ids.findIndex((x) => String(x) === t);
      if (pi >= 0 && !usedP.has(pi) && iou(G.boxes[gi]!, P.boxes[pi]!) >= THR) {
        matched.push([gi, pi]);
        usedG.add(gi);
        usedP.add(pi);
      }
    }
    const gRest = G.ids.map((_, i) => i).filter((i) => !usedG.has(i));
    const pRest = P.ids.map((_, i) => i).filter((i) => !usedP.has(i));
    for (const [a, b] of hungarian(
      gRest.map((i) => G.boxes[i]!),
      pRest.map((i) => P.boxes[i]!),
    )) {
      const gi = gRest[a]!;
      const pi = pRest[b]!;
      const prev = last.get(String(G.ids[gi]));
      if (prev !== undefined && prev !== String(P.ids[pi])) idsw++;
      matched.push([gi, pi]);
    }
    for (const [gi, pi] of matched) last.set(String(G.ids[gi]), String(P.ids[pi]));
    fn += G.ids.length - matched.length;
    fp += P.ids.length - matched.length;
    frames.push({ fp: fp - before.fp, fn: fn - before.fn, idsw: idsw - before.idsw, ignored: dropped });
  }
  // IDF1's global bijection between identities.
  const gIds = [...new Set(gt.flatMap((x) => x.ids.map(String)))];
  const pIds = [...new Set(pred.flatMap((x) => x.ids.map(String)))];
  const mapping = new Map<string, string>();
  let idtp = 0;
  if (gIds.length && pIds.length) {
    const maxF = Math.max(1, ...pairFrames.values());
    const cost = gIds.map((g) => pIds.map((p) => maxF - (pairFrames.get(`${g}|${p}`) ?? 0)));
    for (const [a, b] of munkres(cost)) {
      const n = pairFrames.get(`${gIds[a]}|${pIds[b]}`) ?? 0;
      if (n > 0) {
        idtp += n;
        mapping.set(gIds[a]!, pIds[b]!);
      }
    }
  }
  return {
    gt: nGt,
    fp,
    fn,
    id_switches: idsw,
    mota: nGt ? 1 - (fn + fp + idsw) / nGt : 0,
    idtp,
    idf1: nGt + nPred ? (2 * idtp) / (nGt + nPred) : 0,
    mapping,
    ignored,
    frames,
  };
}

/** The frame's predictions less those matched to an ignored animal (matched against every GT box at once). */
function withoutIgnored(G: FrameBoxes, P: FrameBoxes): FrameBoxes {
  const ign = G.ignored ?? [];
  if (!ign.length || !P.ids.length) return P;
  const drop = new Set(
    hungarian([...G.boxes, ...ign], P.boxes)
      .filter(([g]) => g >= G.boxes.length)
      .map(([, p]) => p),
  );
  const keep = P.ids.map((_, i) => i).filter((i) => !drop.has(i));
  return { ids: keep.map((i) => P.ids[i]!), boxes: keep.map((i) => P.boxes[i]!) };
}

/** Hungarian on 1 − IoU, keeping pairs with IoU ≥ 0.5. */
function hungarian(a: Box[], b: Box[]): [number, number][] {
  if (!a.length || !b.length) return [];
  const cost = a.map((x) => b.map((y) => 1 - iou(x, y)));
  return munkres(cost).filter(([i, j]) => cost[i]![j]! <= 1 - THR) as [number, number][];
}
