/**
 * A multi-object tracker of the ByteTrack family (Zhang et al. 2022), with BoT-SORT's camera
 * motion compensation (Aharon et al. 2022) and appearance used only to re-link a lost track:
 *
 * 1. every track's Kalman state is predicted one frame, then carried through the camera motion;
 * 2. high-score detections are assigned to tracked and lost tracks by IoU (Hungarian);
 * 3. low-score detections are assigned to the tracks still unmatched (an animal half hidden
 *    behind another scores low, and ByteTrack's insight is that it is still the same animal);
 * 4. unconfirmed (one-frame) tracks take what high detections remain;
 * 5. lost tracks whose predicted box no longer overlaps anything may take a remaining high
 *    detection when their appearance agrees (an occlusion long enough for the motion guess to
 *    drift), within a generous distance gate, unless the detection lies inside an animal
 *    tracked in this frame;
 * 6. what is left starts new tracks; lost tracks older than the buffer are dropped.
 *
 * ```ts
 * const t = new Tracker();
 * for (const frame of frames) {
 *   const active = t.update(detections, { motion: H, });   // H: previous → current frame, optional
 * }
 * const tracks = t.finished();   // every confirmed track with its boxes, for counting
 * ```
 * Pure and synchronous: frames, detection and embeddings are the caller's business.
 */
import munkres from 'munkres';
import { insideShare, iou, type Box } from '../vision/boxes.js';
import { fromMean, initiate, predict, toZ, update, warp, type KalmanState, type Mat } from './kalman.js';

export { insideShare, iou, type Box };

export interface TrackerDetection {
  box: Box;
  score: number;
  /** COCO label (or any class name); tracks never switch class. */
  label?: string;
  /** L2-normalised appearance vector; only used to re-link lost tracks. */
  feature?: Float32Array;
}

export interface TrackerOptions {
  /** Detections at or above this are "high" (first association). */
  highScore: number;
  /** Detections below this are ignored altogether. */
  lowScore: number;
  /** A high detection left over starts a track only at or above this. */
  newTrackScore: number;
  /** Lowest IoU for the first, second and unconfirmed associations. */
  iouHigh: number;
  iouLow: number;
  iouUnconfirmed: number;
  /** Frames a lost track is kept before it is dropped (ByteTrack's track buffer). */
  buffer: number;
  /** Lowest cosine between a lost track and a detection to re-link them by appearance. */
  appearance: number;
  /** Re-linking gate: the detection's centre within this many diagonals (of the track's last seen box) of the prediction. */
  relinkGate: number;
  /**
   * A detection lying this much (share of its area) inside the box of a track matched in the same
   * frame re-links no lost track: it is a piece of that animal, or another animal it carries in
   * its picture, and a herd's colours alike would hand the lost track to it.
   */
  relinkInside: number;
  /** A track shorter than this (in matched frames) is not reported by `finished()`. */
  minHits: number;
}

export const DEFAULT_TRACKER: TrackerOptions = {
  highScore: 0.5,
  lowScore: 0.1,
  newTrackScore: 0.6,
  iouHigh: 0.2,
  iouLow: 0.5,
  iouUnconfirmed: 0.3,
  buffer: 30,
  appearance: 0.8,
  relinkGate: 3,
  relinkInside: 0.8,
  minHits: 3,
};

export type TrackState = 'new' | 'tracked' | 'lost' | 'removed';

/** One observation of a track (a matched detection, never a coasted prediction). */
export interface TrackPoint {
  frame: number;
  box: Box;
  score: number;
  detection: number;
}

export interface Track {
  id: number;
  state: TrackState;
  label?: string;
  kf: KalmanState;
  /** Matched observations, in frame order. */
  points: TrackPoint[];
  /** Exponential moving average of the matched detections' features (BoT-SORT's α = 0.9). */
  feature?: Float32Array;
  lastFrame: number;
  /** How many times appearance re-linked it after it was lost. */
  relinks: number;
}

const cosine = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/** Hungarian assignment on a cost matrix; pairs whose cost exceeds `maxCost` are left unmatched. */
export function assign(
  cost: number[][],
  maxCost: number,
  cols = cost[0]?.length ?? 0,
): { pairs: [number, number][]; rows: number[]; cols: number[] } {
  const nr = cost.length;
  const nc = cols;
  const pairs: [number, number][] = [];
  if (nr && nc) {
    // Costs above the gate are raised to one big constant so the optimum never trades a good
    // pair for two impossible ones; such pairs are then dropped.
    const big = maxCost + 1e3;
    const m = cost.map((row) => row.map((x) => (x > maxCost ? big : x)));
    for (const [r, c] of munkres(m)) if (cost[r]![c]! <= maxCost) pairs.push([r, c]);
  }
  const mr = new Set(pairs.map((p) => p[0]));
  const mc = new Set(pairs.map((p) => p[1]));
  return { pairs, rows: [...Array(nr).keys()].filter((i) => !mr.has(i)), cols: [...Array(nc).keys()].filter((j) => !mc.has(j)) };
}

export class Tracker {
  readonly opts: TrackerOptions;
  private frame = 0;
  private nextId = 1;
  private tracks: Track[] = [];
  private done: Track[] = [];

  constructor(opts: Partial<TrackerOptions> = {}) {
    this.opts = { ...DEFAULT_TRACKER, ...opts };
  }

  /** The current frame number (1 after the first update). */
  get frameIndex(): number {
    return this.frame;
  }

  /** Lost tracks exist: only then is appearance worth computing for the next frame's detections. */
  hasLost(): boolean {
    return this.tracks.some((t) => t.state === 'lost');
  }

  /**
   * Advance one frame. `motion` maps the previous frame's pixels to this frame's (a homography);
   * omit it for a still camera. Answers the tracks matched in this frame.
   */
  update(dets: readonly TrackerDetection[], o: { motion?: Mat; frame?: { width: number; height: number } } = {}): Track[] {
    this.frame++;
    const o2 = this.opts;
    for (const t of this.tracks) {
      t.kf = predict(t.kf);
      if (o.motion) t.kf = warp(t.kf, o.motion);
    }
    const idx = dets.map((_, i) => i).filter((i) => dets[i]!.score >= o2.lowScore);
    const high = idx.filter((i) => dets[i]!.score >= o2.highScore);
    const low = idx.filter((i) => dets[i]!.score < o2.highScore);
    const matched: Track[] = [];

    // 1. confirmed and lost tracks against high detections.
    const pool = this.tracks.filter((t) => t.state === 'tracked' || t.state === 'lost');
    const first = this.match(pool, high, dets, o2.iouHigh);
    matched.push(...first.matched);
    // 2. tracks tracked until now (not lost ones: a lost track must come back on a strong detection) against low detections.
    const stillTracked = first.tracks.filter((t) => t.state === 'tracked');
    const second = this.match(stillTracked, low, dets, o2.iouLow);
    matched.push(...second.matched);
    for (const t of second.tracks) t.state = 'lost';
    // 3. unconfirmed tracks against the remaining high detections; an unconfirmed track that misses goes.
    const unconfirmed = this.tracks.filter((t) => t.state === 'new');
    const third = this.match(unconfirmed, first.dets, dets, o2.iouUnconfirmed);
    matched.push(...third.matched);
    for (const t of third.tracks) t.state = 'removed';
    // 4. appearance re-link of lost tracks (those not matched by IoU in stage 1).
    // A track whose predicted centre has left the picture walked (or was flown) out of view:
    // it may come back at the edge by IoU, but appearance must not pull it back into the middle.
    const inView = (t: Track) => {
      if (!o.frame) return true;
      const [cx, cy] = t.kf.mean as [number, number];
      return cx >= 0 && cy >= 0 && cx < o.frame.width && cy < o.frame.height;
    };
    const held = matched.map((t) => t.points.at(-1)!.box);
    const free = third.dets.filter((i) => !held.some((b) => insideShare(dets[i]!.box, b) >= o2.relinkInside));
    const relinked = this.relink(
      first.tracks.filter((t) => t.state === 'lost' && !second.tracks.includes(t) && inView(t)),
      free,
      dets,
    );
    // What lay inside a tracked animal may still start a track of its own (a calf by its mother).
    relinked.dets = third.dets.filter((i) => !free.includes(i) || relinked.dets.includes(i));
    matched.push(...relinked.matched);
    // 5. new tracks.
    for (const i of relinked.dets) {
      const d = dets[i]!;
      if (d.score < o2.newTrackScore) continue;
      const t: Track = {
        id: 0,
        state: this.frame === 1 ? 'tracked' : 'new',
        label: d.label,
        kf: initiate(toZ(d.box)),
        points: [{ frame: this.frame, box: d.box, score: d.score, detection: i }],
        feature: d.feature,
        lastFrame: this.frame,
        relinks: 0,
      };
      this.tracks.push(t);
      if (t.state === 'tracked') matched.push(t);
    }
    // 6. retire what was lost too long, and removed tracks.
    for (const t of this.tracks) {
      if (t.state === 'lost' && this.frame - t.lastFrame > o2.buffer) t.state = 'removed';
    }
    this.retire();
    // Ids are given when a track is confirmed, so a one-frame false alarm never uses one up.
    for (const t of matched) if (t.id === 0 && t.state === 'tracked') t.id = this.nextId++;
    return matched.filter((t) => t.state === 'tracked');
  }

  /** Every confirmed track that lived long enough, ended or still running, by id. */
  finished(): Track[] {
    return [...this.done, ...this.tracks].filter((t) => t.id > 0 && t.points.length >= this.opts.minHits).sort((a, b) => a.id - b.id);
  }

  /** Tracks lost right now (for tests and diagnostics). */
  lost(): Track[] {
    return this.tracks.filter((t) => t.state === 'lost');
  }

  private retire(): void {
    const gone = this.tracks.filter((t) => t.state === 'removed');
    this.done.push(...gone.filter((t) => t.id > 0));
    this.tracks = this.tracks.filter((t) => t.state !== 'removed');
  }

  private apply(t: Track, i: number, d: TrackerDetection): void {
    t.kf = update(t.kf, toZ(d.box));
    t.points.push({ frame: this.frame, box: d.box, score: d.score, detection: i });
    t.lastFrame = this.frame;
    t.state = 'tracked';
    if (d.feature) t.feature = t.feature ? blend(t.feature, d.feature) : d.feature;
  }

  /** IoU association; answers matched tracks, unmatched tracks and unmatched detection indices. */
  private match(tracks: Track[], di: number[], dets: readonly TrackerDetection[], minIou: number) {
    const cost = tracks.map((t) => {
      const p = fromMean(t.kf.mean);
      return di.map((i) => {
        const d = dets[i]!;
        // A track never takes a detection of another class (a dog crossing the herd stays a dog).
        if (t.label && d.label && t.label !== d.label) return 1;
        return 1 - iou(p, d.box);
      });
    });
    const a = assign(cost, 1 - minIou, di.length);
    for (const [r, c] of a.pairs) this.apply(tracks[r]!, di[c]!, dets[di[c]!]!);
    return { matched: a.pairs.map(([r]) => tracks[r]!), tracks: a.rows.map((r) => tracks[r]!), dets: a.cols.map((c) => di[c]!) };
  }

  private relink(lost: Track[], di: number[], dets: readonly TrackerDetection[]) {
    const cands = lost.filter((t) => t.feature);
    const usable = di.filter((i) => dets[i]!.feature);
    if (!cands.length || !usable.length) return { matched: [] as Track[], dets: di };
    const cost = cands.map((t) => {
      const p = fromMean(t.kf.mean);
      // Sized by the box last seen: coasting, the filter's size follows the velocity it had, and an
      // animal going behind another shrinks before it is lost (on bench:survey's nyala phone clip the
      // gate of a nyala hidden 9 frames had fallen to 67 px; the animal is over 300 px long).
      const seen = t.points.at(-1)!.box;
      const gate = this.opts.relinkGate * Math.hypot(seen.w, seen.h);
      return usable.map((i) => {
        const d = dets[i]!;
        if (t.label && d.label && t.label !== d.label) return 2;
        const dist = Math.hypot(d.box.x + d.box.w / 2 - (p.x + p.w / 2), d.box.y + d.box.h / 2 - (p.y + p.h / 2));
        const cos = cosine(t.feature!, d.feature!);
        // Appearance decides, distance breaks ties between lookalikes (a herd shares its colours).
        return dist > gate || cos < this.opts.appearance ? 2 : 1 - cos + 0.2 * (dist / gate);
      });
    });
    const a = assign(cost, 1 - this.opts.appearance + 0.2);
    for (const [r, c] of a.pairs) {
      const t = cands[r]!;
      // The motion guess drifted during the occlusion: restart the filter on the detection.
      t.kf = initiate(toZ(dets[usable[c]!]!.box));
      this.apply(t, usable[c]!, dets[usable[c]!]!);
      t.relinks++;
    }
    const used = new Set(a.pairs.map(([, c]) => usable[c]!));
    return { matched: a.pairs.map(([r]) => cands[r]!), dets: di.filter((i) => !used.has(i)) };
  }
}

/** BoT-SORT's feature EMA, re-normalised. */
function blend(old: Float32Array, cur: Float32Array, alpha = 0.9): Float32Array {
  const out = new Float32Array(old.length);
  let n = 0;
  for (let i = 0; i < old.length; i++) n += (out[i] = alpha * old[i]! + (1 - alpha) * cur[i]!) ** 2;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < out.length; i++) out[i]! /= n;
  return out;
}
