/**
 * The graph of the batched RANSAC fit (robust-fit.ts), built in memory from operators only: for
 * every pair of a batch and every hypothesis (4 sampled matches), the homography in closed form
 * (unit square to each quadrilateral, one composed with the adjugate of the other), samples whose
 * orientation flips rejected, every tentative match reprojected and counted (forward error under
 * the threshold); the output is the best hypothesis's inlier mask per pair.
 */
import { GraphBuilder } from './onnx-graph.js';

/** The graph: per pair, score every hypothesis from its 4 sample indices; keep the best one's inliers. */
export function buildFitGraph(): Uint8Array {
  const g = new GraphBuilder('batched-homography-ransac');
  g.input('src', 'float', ['N', 'K', 2]);
  g.input('dst', 'float', ['N', 'K', 2]);
  g.input('valid', 'float', ['N', 'K']);
  g.input('idx', 'int64', ['N', 'S']);
  g.input('thr2', 'float', [1]);
  const sub = (a: string, b: string) => g.op('Sub', [a, b]);
  const add = (a: string, b: string) => g.op('Add', [a, b]);
  const mul = (a: string, b: string) => g.op('Mul', [a, b]);
  const div = (a: string, b: string) => g.op('Div', [a, b]);
  const one = g.float([1], [1, 1, 1, 1]);

  const ii = g.op('Unsqueeze', ['idx', g.int64([2])]);
  /** The 4 sampled points of each hypothesis as x[0..3], y[0..3], each [N, H, 1, 1]. */
  const corners = (pts: string) => {
    const picked = g.op('GatherND', [pts, ii], { batch_dims: 1 });
    const quads = g.op('Reshape', [picked, g.int64([0, -1, 4, 2])]);
    const four = g.ops('Split', [quads], 4, { axis: 2 });
    const xy = four.map((p) => g.ops('Split', [p], 2, { axis: 3 }));
    return { x: xy.map((p) => p[0]!), y: xy.map((p) => p[1]!) };
  };
  /** Heckbert's projective map of the unit square onto a quadrilateral: entries a..h (i = 1). */
  const squareToQuad = ({ x, y }: { x: string[]; y: string[] }) => {
    const [x0, x1, x2, x3] = x as [string, string, string, string];
    const [y0, y1, y2, y3] = y as [string, string, string, string];
    const sx = add(sub(x0, x1), sub(x2, x3));
    const sy = add(sub(y0, y1), sub(y2, y3));
    const dx1 = sub(x1, x2);
    const dx2 = sub(x3, x2);
    const dy1 = sub(y1, y2);
    const dy2 = sub(y3, y2);
    const den = sub(mul(dx1, dy2), mul(dx2, dy1));
    const gg = div(sub(mul(sx, dy2), mul(dx2, sy)), den);
    const hh = div(sub(mul(dx1, sy), mul(sx, dy1)), den);
    return {
      a: add(sub(x1, x0), mul(gg, x1)),
      b: add(sub(x3, x0), mul(hh, x3)),
      c: x0,
      d: add(sub(y1, y0), mul(gg, y1)),
      e: add(sub(y3, y0), mul(hh, y3)),
      f: y0,
      g: gg,
      h: hh,
    };
  };
  const matrix = (entries: string[]) => g.op('Reshape', [g.op('Concat', entries, { axis: 3 }), g.int64([0, 0, 3, 3])]);
  /** Orientation of the triangles (0,1,2), (1,2,3), (2,3,0), (3,0,1) of a sample. */
  const orientations = ({ x, y }: { x: string[]; y: string[] }) =>
    [0, 1, 2, 3].map((k) => {
      const [a, b, c] = [k, (k + 1) % 4, (k + 2) % 4];
      return sub(mul(sub(x[b]!, x[a]!), sub(y[c]!, y[a]!)), mul(sub(y[b]!, y[a]!), sub(x[c]!, x[a]!)));
    });

  const cs = corners('src');
  const cd = corners('dst');
  const s = squareToQuad(cs);
  const d = squareToQuad(cd);
  // adj(S) with S = [[a,b,c],[d,e,f],[g,h,1]]: the inverse up to scale, which a homography ignores.
  const adj = matrix([
    sub(s.e, mul(s.f, s.h)),
    sub(mul(s.c, s.h), s.b),
    sub(mul(s.b, s.f), mul(s.c, s.e)),
    sub(mul(s.f, s.g), s.d),
    sub(s.a, mul(s.c, s.g)),
    sub(mul(s.c, s.d), mul(s.a, s.f)),
    sub(mul(s.d, s.h), mul(s.e, s.g)),
    sub(mul(s.b, s.g), mul(s.a, s.h)),
    sub(mul(s.a, s.e), mul(s.b, s.d)),
  ]);
  // Concat does not broadcast: the constant 1 takes the shape of the other entries.
  const oneLike = add(mul(d.c, g.float([0], [1, 1, 1, 1])), one);
  const hd = matrix([d.a, d.b, d.c, d.d, d.e, d.f, d.g, d.h, oneLike]);
  const hom = g.op('MatMul', [hd, adj]);

  // A homography maps every triangle with the same orientation (or every one flipped).
  const os = orientations(cs);
  const od = orientations(cd);
  const zero = g.float([0]);
  const agree = os.map((o, k) => g.op('Greater', [mul(o, od[k]!), zero]));
  const okAll = agree.slice(1).reduce((acc, a) => g.op('And', [acc, a]), agree[0]!);
  const ok = g.op('Cast', [okAll], { to: 1 });

  // Reproject every tentative match: [N, H, 3, 3] x [N, 1, 3, K].
  const srcT = g.op('Transpose', ['src'], { perm: [0, 2, 1] });
  // Homogeneous coordinates: a row of ones under x and y, [N, 3, K].
  const onesRow = g.op('Add', [g.op('Mul', [g.op('Unsqueeze', ['valid', g.int64([1])]), zero]), g.float([1])]);
  const srcH = g.op('Concat', [srcT, onesRow], { axis: 1 });
  const proj = g.op('MatMul', [hom, g.op('Unsqueeze', [srcH, g.int64([1])])]);
  const [px, py, pw] = g.ops('Split', [proj], 3, { axis: 2 }) as [string, string, string];
  const dstT = g.op('Unsqueeze', [g.op('Transpose', ['dst'], { perm: [0, 2, 1] }), g.int64([1])]);
  const [dx, dy] = g.ops('Split', [dstT], 2, { axis: 2 }) as [string, string];
  const ex = sub(div(px, pw), dx);
  const ey = sub(div(py, pw), dy);
  const err2 = add(mul(ex, ex), mul(ey, ey));
  const within = g.op('Cast', [g.op('Less', [err2, 'thr2'])], { to: 1 });
  const valid4 = g.op('Unsqueeze', ['valid', g.int64([1, 2])]);
  const inl = g.op('Reshape', [mul(mul(within, valid4), ok), g.int64([0, 0, -1])]);
  const count = g.op('ReduceSum', [inl, g.int64([2])], { keepdims: 0 });
  const best = g.op('ArgMax', [count], { axis: 1, keepdims: 1 });
  g.op('GatherND', [inl, best], { batch_dims: 1 }, 'mask');
  g.output('mask', 'float', ['N', 'K']);
  return g.encode('markless/workers/src/vision/robust-fit-graph.ts');
}
