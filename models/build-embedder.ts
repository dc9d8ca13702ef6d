/**
 * Builds models/markless-texture-v1.onnx: a global surface descriptor made of
 * engineered operators only (no learned or downloaded weights), and writes
 * its entry in models/manifest.json (the model registry) with its sha256. Deterministic: the same script always
 * writes the same bytes.
 *
 *   npx tsx models/build-embedder.ts
 *
 * Graph (input `image` [N,3,128,128], RGB in 0..1):
 *  - luma by a 1x1 convolution, plus a 2x-downsampled copy;
 *  - a Gabor bank (4 orientations x 2 wavelengths, even + odd phase = 16
 *    filters, 11x11) at both scales; magnitude; pooled on a 4x4 grid and
 *    globally; square-rooted (Hellinger) and L2-normalised;
 *  - the luma layout on an 8x8 grid and colour on a 4x4 grid, mean-removed
 *    and L2-normalised (robust to brightness offsets);
 *  - the blocks weighted, concatenated and L2-normalised: output `embedding`.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
const here = dirname(fileURLToPath(import.meta.url));

export const MODEL_NAME = 'markless-texture';
export const MODEL_VERSION = '1.0.0';
export const MODEL_FILE = 'markless-texture-v1.onnx';
const SIZE = 128;
const KSIZE = 11;
const BLOCK_WEIGHTS = { texture: 1.0, global: 0.6, layout: 0.7, colour: 0.4 };

type Attr = onnxProto.onnx.IAttributeProto;
const FLOAT = onnx.TensorProto.DataType.FLOAT;

function tensor(name: string, dims: number[], values: Float32Array | number[]): onnxProto.onnx.ITensorProto {
  const data = values instanceof Float32Array ? values : Float32Array.from(values);
  return { name, dims, dataType: FLOAT, rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}
const ints = (name: string, v: number[]): Attr => ({ name, type: onnx.AttributeProto.AttributeType.INTS, ints: v });
const int = (name: string, v: number): Attr => ({ name, type: onnx.AttributeProto.AttributeType.INT, i: v });

/** Gabor kernels, even (zero-mean cosine) and odd (sine) phases, each L1-normalised. */
function gaborBank(): Float32Array {
  const out = new Float32Array(16 * KSIZE * KSIZE);
  const r = (KSIZE - 1) / 2;
  let k = 0;
  for (const lambda of [4, 8]) {
    const sigma = 0.56 * lambda;
    for (let o = 0; o < 4; o++) {
      const th = (o * Math.PI) / 4;
      for (const phase of [0, Math.PI / 2]) {
        const vals: number[] = [];
        for (let y = -r; y <= r; y++) {
          for (let x = -r; x <= r; x++) {
            const xr = x * Math.cos(th) + y * Math.sin(th);
            const yr = -x * Math.sin(th) + y * Math.cos(th);
            const env = Math.exp(-(xr * xr + yr * yr) / (2 * sigma * sigma));
            vals.push(env * Math.cos((2 * Math.PI * xr) / lambda + phase));
          }
        }
        const mean = vals.reduce((a, b) => a + b, 0) / vals.length;
        const centred = vals.map((v) => v - mean);
        const l1 = centred.reduce((a, b) => a + Math.abs(b), 0) || 1;
        centred.forEach((v, i) => (out[k * KSIZE * KSIZE + i] = v / l1));
        k++;
      }
    }
  }
  return out;
}

function node(op: string, inputs: string[], output: string, attribute: Attr[] = []): onnxProto.onnx.INodeProto {
  return { opType: op, input: inputs, output: [output], name: output, attribute };
}
const avgPool = (x: string, k: number, out: string) =>
  node('AveragePool', [x], out, [ints('kernel_shape', [k, k]), ints('strides', [k, k])]);
const l2 = (x: string, out: string) => node('LpNormalization', [x], out, [int('axis', 1), int('p', 2)]);

/** Mean-removed, L2-normalised flattening of a pooled map. */
function centredBlock(x: string, prefix: string): onnxProto.onnx.INodeProto[] {
  return [
    node('Flatten', [x], `${prefix}_flat`, [int('axis', 1)]),
    node('ReduceMean', [`${prefix}_flat`], `${prefix}_mean`, [ints('axes', [1]), int('keepdims', 1)]),
    node('Sub', [`${prefix}_flat`, `${prefix}_mean`], `${prefix}_centred`),
    l2(`${prefix}_centred`, `${prefix}_n`),
  ];
}

/** The graph's bytes; other block weights or version give a different, equally reproducible model (a candidate for tests). */
export function buildModel(weights: Record<keyof typeof BLOCK_WEIGHTS, number> = BLOCK_WEIGHTS, version = MODEL_VERSION): Uint8Array {
  const nodes: onnxProto.onnx.INodeProto[] = [
    node('Conv', ['image', 'w_luma'], 'luma'),
    avgPool('luma', 2, 'luma2'),
    ...[
      ['luma', 'f1'],
      ['luma2', 'f2'],
    ].map(([x, y]) => node('Conv', [x!, 'w_gabor'], y!, [ints('pads', [5, 5, 5, 5]), ints('kernel_shape', [KSIZE, KSIZE])])),
    node('Abs', ['f1'], 'a1'),
    node('Abs', ['f2'], 'a2'),
    avgPool('a1', SIZE / 4, 'p1'),
    avgPool('a2', SIZE / 8, 'p2'),
    node('Concat', ['p1', 'p2'], 'grid', [int('axis', 1)]),
    node('Flatten', ['grid'], 'grid_flat', [int('axis', 1)]),
    node('Sqrt', ['grid_flat'], 'grid_sqrt'),
    l2('grid_sqrt', 'texture_n'),
    node('ReduceMean', ['grid'], 'glob', [ints('axes', [2, 3]), int('keepdims', 0)]),
    node('Sqrt', ['glob'], 'glob_sqrt'),
    l2('glob_sqrt', 'global_n'),
    avgPool('luma', SIZE / 8, 'layout'),
    ...centredBlock('layout', 'layout'),
    avgPool('image', SIZE / 4, 'colour'),
    ...centredBlock('colour', 'colour'),
    ...(['texture', 'global', 'layout', 'colour'] as const).map((b) => node('Mul', [`${b}_n`, `k_${b}`], `${b}_w`)),
    node('Concat', ['texture_w', 'global_w', 'layout_w', 'colour_w'], 'concat', [int('axis', 1)]),
    l2('concat', 'embedding'),
  ];
  const initializer = [
    tensor('w_luma', [1, 3, 1, 1], [0.299, 0.587, 0.114]),
    tensor('w_gabor', [16, 1, KSIZE, KSIZE], gaborBank()),
    ...Object.entries(weights).map(([b, w]) => tensor(`k_${b}`, [1], [w])),
  ];
  const dim = (d: number | string) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d });
  const model: onnxProto.onnx.IModelProto = {
    irVersion: 7,
    producerName: 'markless/models/build-embedder.ts',
    producerVersion: version,
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: MODEL_NAME,
      node: nodes,
      initializer,
      input: [{ name: 'image', type: { tensorType: { elemType: FLOAT, shape: { dim: ['N', 3, SIZE, SIZE].map(dim) } } } }],
      output: [{ name: 'embedding', type: { tensorType: { elemType: FLOAT, shape: { dim: [dim('N'), dim('D')] } } } }],
    },
  };
  return onnx.ModelProto.encode(onnx.ModelProto.create(model)).finish();
}

/** Output dimension: 512 grid texture + 32 global texture + 64 layout + 48 colour. */
export const EMBEDDING_DIM = 32 * 16 + 32 + 64 + 48;

/** The registry entry of the model's bytes. */
export function manifestEntry(bytes: Uint8Array) {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return {
    name: MODEL_NAME,
    version: MODEL_VERSION,
    role: 'global-embedding',
    file: MODEL_FILE,
    sha256,
    bytes: bytes.byteLength,
    licence: 'Same licence as the markless repository (generated by its own script; no third-party weights)',
    source: {
      repository: 'markless (this repository)',
      path: 'models/build-embedder.ts',
      note: 'npx tsx models/build-embedder.ts (engineered operators only: luma, Gabor bank at 2 scales, grid pooling, Hellinger + L2 normalisation, layout and colour grids; no training data, no downloaded weights)',
    },
    inputs: [{ name: 'image', shape: ['N', 3, SIZE, SIZE], dtype: 'float32' }],
    outputs: [{ name: 'embedding', shape: ['N', EMBEDDING_DIM], dtype: 'float32' }],
    preprocessing: {
      layout: 'NCHW',
      colour: 'RGB',
      range: [0, 1],
      resize: 'fill (stretch) with sharp, lanczos3',
      output: 'L2-normalised, compared by cosine',
    },
    kinds: ['tree', 'fruit', 'animal'],
    block_weights: BLOCK_WEIGHTS,
    opset: 13,
  };
}

function main(): void {
  const bytes = buildModel();
  writeFileSync(join(here, MODEL_FILE), bytes);
  const entry = manifestEntry(bytes);
  const sha256 = entry.sha256;
  // The manifest is the registry of every model: replace this model's entry, keep the others.
  const path = join(here, 'manifest.json');
  const manifest = existsSync(path)
    ? (JSON.parse(readFileSync(path, 'utf8')) as { schema: number; models: { name: string }[] })
    : { schema: 2, models: [] };
  const at = manifest.models.findIndex((m) => m.name === MODEL_NAME);
  if (at >= 0) manifest.models[at] = entry;
  else manifest.models.unshift(entry);
  writeFileSync(path, JSON.stringify(manifest, null, 2) + '\n');
  console.log(`wrote ${MODEL_FILE} (${bytes.byteLength} bytes, sha256 ${sha256})`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
