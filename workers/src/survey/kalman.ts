/**
 * Constant-velocity Kalman filter over a box, as ByteTrack and BoT-SORT use it: the state is
 * the box centre, width and height and their velocities `[cx, cy, w, h, vcx, vcy, vw, vh]`,
 * the measurement is `[cx, cy, w, h]`. Noise scales with the box size, so a far-away calf and a
 * cow filling the frame are tracked with the same relative confidence.
 *
 * ```ts
 * let s = initiate([cx, cy, w, h]);
 * s = predict(s);                 // once per frame
 * s = update(s, [cx, cy, w, h]);  // when a detection is assigned
 * s = warp(s, H);                 // camera moved: carry the state into the new frame
 * ```
 */
export type Vec = number[];
/** Row-major square or rectangular matrix. */
export type Mat = number[][];

export interface KalmanState {
  mean: Vec;
  cov: Mat;
}

/** BoT-SORT's weights: position noise 1/20 of the box size, velocity 1/160. */
const W_POS = 1 / 20;
const W_VEL = 1 / 160;

const zeros = (r: number, c: number): Mat => Array.from({ length: r }, () => new Array<number>(c).fill(0));
const eye = (n: number): Mat => zeros(n, n).map((row, i) => ((row[i] = 1), row));
const diag = (v: Vec): Mat => zeros(v.length, v.length).map((row, i) => ((row[i] = v[i]!), row));

export function mul(a: Mat, b: Mat): Mat {
  const out = zeros(a.length, b[0]!.length);
  for (let i = 0; i < a.length; i++) {
    for (let k = 0; k < b.length; k++) {
      const x = a[i]![k]!;
      if (x === 0) continue;
      for (let j = 0; j < b[0]!.length; j++) out[i]![j]! += x * b[k]![j]!;
    }
  }
  return out;
}
export const transpose = (a: Mat): Mat => a[0]!.map((_, j) => a.map((row) => row[j]!));
const add = (a: Mat, b: Mat): Mat => a.map((row, i) => row.map((x, j) => x + b[i]![j]!));
const sub = (a: Mat, b: Mat): Mat => a.map((row, i) => row.map((x, j) => x - b[i]![j]!));
const mulVec = (a: Mat, v: Vec): Vec => a.map((row) => row.reduce((s, x, j) => s + x * v[j]!, 0));

/** Inverse by Gauss-Jordan with partial pivoting (4×4 here: the innovation covariance). */
export function invert(m: Mat): Mat {
  const n = m.length;
  const a = m.map((row, i) => [...row, ...eye(n)[i]!]);
  for (let col = 0; col < n; col++) {
    let p = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r]![col]!) > Math.abs(a[p]![col]!)) p = r;
    [a[col], a[p]] = [a[p]!, a[col]!];
    const piv = a[col]![col]!;
    if (Math.abs(piv) < 1e-12) throw new Error('singular matrix');
    for (let j = 0; j < 2 * n; j++) a[col]![j]! /= piv;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = a[r]![col]!;
      if (f !== 0) for (let j = 0; j < 2 * n; j++) a[r]![j]! -= f * a[col]![j]!;
    }
  }
  return a.map((row) => row.slice(n));
}

/** Motion model: position += velocity, one frame per step. */
const F: Mat = (() => {
  const f = eye(8);
  for (let i = 0; i < 4; i++) f[i]![4 + i] = 1;
  return f;
})();
const FT = transpose(F);
/** Measurement picks the first four state entries. */
const Hm: Mat = zeros(4, 8).map((row, i) => ((row[i] = 1), row));
const HmT = transpose(Hm);

/** A new track from its first box, velocities unknown (wide). */
export function initiate(z: Vec): KalmanState {
  const [, , w, h] = z as [number, number, number, number];
  const std = [2 * W_POS * w, 2 * W_POS * h, 2 * W_POS * w, 2 * W_POS * h, 10 * W_VEL * w, 10 * W_VEL * h, 10 * W_VEL * w, 10 * W_VEL * h];
  return { mean: [...z, 0, 0, 0, 0], cov: diag(std.map((s) => s * s)) };
}

/** One frame ahead. */
export function predict(s: KalmanState): KalmanState {
  const [, , w, h] = s.mean as [number, number, number, number];
  const std = [W_POS * w, W_POS * h, W_POS * w, W_POS * h, W_VEL * w, W_VEL * h, W_VEL * w, W_VEL * h];
  const mean = mulVec(F, s.mean);
  // A box never shrinks through zero while coasting: that would make IoU meaningless.
  mean[2] = Math.max(1, mean[2]!);
  mean[3] = Math.max(1, mean[3]!);
  return { mean, cov: add(mul(mul(F, s.cov), FT), diag(std.map((x) => x * x))) };
}

/** Fold in one measured box. */
export function update(s: KalmanState, z: Vec): KalmanState {
  const [, , w, h] = s.mean as [number, number, number, number];
  const r = [W_POS * w, W_POS * h, W_POS * w, W_POS * h].map((x) => x * x);
  const S = add(mul(mul(Hm, s.cov), HmT), diag(r));
  const K = mul(mul(s.cov, HmT), invert(S));
  const innov = z.map((x, i) => x - s.mean[i]!);
  const mean = s.mean.map((x, i) => x + K[i]!.reduce((acc, k, j) => acc + k * innov[j]!, 0));
  const cov = sub(s.cov, mul(mul(K, S), transpose(K)));
  return { mean, cov };
}

/**
 * Carry a state through a camera motion `H` (3×3 homography, previous frame → current frame),
 * linearised at the box centre as BoT-SORT applies its affine: the centre is mapped exactly,
 * velocities and the covariance go through the local 2×2 Jacobian, sizes scale with it.
 */
export function warp(s: KalmanState, Hh: Mat): KalmanState {
  const [cx, cy] = s.mean as [number, number];
  const d = Hh[2]![0]! * cx + Hh[2]![1]! * cy + Hh[2]![2]!;
  const nx = (Hh[0]![0]! * cx + Hh[0]![1]! * cy + Hh[0]![2]!) / d;
  const ny = (Hh[1]![0]! * cx + Hh[1]![1]! * cy + Hh[1]![2]!) / d;
  // Jacobian of the projective map at (cx, cy).
  const J = [
    [(Hh[0]![0]! - nx * Hh[2]![0]!) / d, (Hh[0]![1]! - nx * Hh[2]![1]!) / d],
    [(Hh[1]![0]! - ny * Hh[2]![0]!) / d, (Hh[1]![1]! - ny * Hh[2]![1]!) / d],
  ];
  const scale = Math.sqrt(Math.abs(J[0]![0]! * J[1]![1]! - J[0]![1]! * J[1]![0]!)) || 1;
  // The 8×8 block transform: J on (cx, cy) and on (vcx, vcy), `scale` on sizes and their rates.
  const T = zeros(8, 8);
  for (const o of [0, 4]) {
    T[o]![o] = J[0]![0]!;
    T[o]![o + 1] = J[0]![1]!;
    T[o + 1]![o] = J[1]![0]!;
    T[o + 1]![o + 1] = J[1]![1]!;
    T[o + 2]![o + 2] = scale;
    T[o + 3]![o + 3] = scale;
  }
  const mean = mulVec(T, s.mean);
  mean[0] = nx;
  mean[1] = ny;
  return { mean, cov: mul(mul(T, s.cov), transpose(T)) };
}

/** Box `{x, y, w, h}` (top-left) ↔ measurement `[cx, cy, w, h]`. */
export const toZ = (b: { x: number; y: number; w: number; h: number }): Vec => [b.x + b.w / 2, b.y + b.h / 2, b.w, b.h];
export const fromMean = (m: Vec) => ({ x: m[0]! - m[2]! / 2, y: m[1]! - m[3]! / 2, w: m[2]!, h: m[3]! });
