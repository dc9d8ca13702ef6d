/**
 * A small builder for ONNX graphs made of operators only (no learned weights), encoded in memory
 * with onnx-proto: the batched matching and geometric fit run as such graphs, so ONNX Runtime
 * runs them on whichever execution provider the engine has (CUDA on a GPU worker, MLAS on a CPU).
 *
 * ```ts
 * const g = new GraphBuilder('double');
 * g.input('x', 'float', ['N']);
 * g.output(g.op('Add', ['x', 'x'], {}, 'y'), 'float', ['N']);
 * const bytes = g.encode();
 * ```
 */
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
type Dim = string | number;
export type ElemType = 'float' | 'int64';
/** An attribute: an integer or a list of integers (the only kinds the graphs here use). */
export type Attr = number | number[];

const ELEM: Record<ElemType, number> = {
  float: onnx.TensorProto.DataType.FLOAT,
  int64: onnx.TensorProto.DataType.INT64,
};

function valueInfo(name: string, t: ElemType, dims: Dim[]) {
  const dim = dims.map((x) => (typeof x === 'number' ? { dimValue: x } : { dimParam: x }));
  return { name, type: { tensorType: { elemType: ELEM[t], shape: { dim } } } };
}

function attribute(name: string, v: Attr) {
  const T = onnx.AttributeProto.AttributeType;
  return Array.isArray(v) ? { name, type: T.INTS, ints: v } : { name, type: T.INT, i: v };
}

export class GraphBuilder {
  private readonly nodes: object[] = [];
  private readonly inputs: object[] = [];
  private readonly outputs: object[] = [];
  private readonly initializers: object[] = [];
  private next = 0;

  constructor(
    private readonly name: string,
    private readonly opset = 13,
  ) {}

  input(name: string, t: ElemType, dims: Dim[]): string {
    this.inputs.push(valueInfo(name, t, dims));
    return name;
  }

  output(name: string, t: ElemType, dims: Dim[]): void {
    this.outputs.push(valueInfo(name, t, dims));
  }

  /** One node with one output; returns the output's name (`out`, or a fresh one). */
  op(opType: string, input: string[], attrs: Record<string, Attr> = {}, out?: string): string {
    return this.ops(opType, input, 1, attrs, out ? [out] : undefined)[0]!;
  }

  /** One node with `count` outputs (Split). */
  ops(opType: string, input: string[], count: number, attrs: Record<string, Attr> = {}, out?: string[]): string[] {
    const output = out ?? Array.from({ length: count }, () => `${opType.toLowerCase()}_${this.next++}`);
    const attribute_ = Object.entries(attrs).map(([k, v]) => attribute(k, v));
    this.nodes.push({ opType, input, output, name: output[0], attribute: attribute_ });
    return output;
  }

  /** A constant int64 tensor (shape `dims`; a scalar when `dims` is empty). */
  int64(values: number[], dims: number[] = [values.length]): string {
    const name = `c${this.next++}`;
    const raw = new Uint8Array(BigInt64Array.from(values.map(BigInt)).buffer);
    this.initializers.push({ name, dims, dataType: ELEM.int64, rawData: raw });
    return name;
  }

  /** A constant float tensor. */
  float(values: number[], dims: number[] = [values.length]): string {
    const name = `c${this.next++}`;
    this.initializers.push({ name, dims, dataType: ELEM.float, rawData: new Uint8Array(Float32Array.from(values).buffer) });
    return name;
  }

  encode(producer = 'markless'): Uint8Array {
    const model = {
      irVersion: 7,
      producerName: producer,
      opsetImport: [{ domain: '', version: this.opset }],
      graph: { name: this.name, node: this.nodes, input: this.inputs, output: this.outputs, initializer: this.initializers },
    };
    return onnx.ModelProto.encode(onnx.ModelProto.create(model as onnxProto.onnx.IModelProto)).finish();
  }
}

/**
 * Sets of rows (`count` rows of `dim` values each) as one batch of column matrices,
 * `[sets, dim, width]`, zero-padded to the widest set: the right-hand side of a batched matrix
 * product against one query's rows.
 */
export function columnsBatch(sets: readonly { rows: Float32Array; count: number }[], dim: number): { data: Float32Array; width: number } {
  const width = Math.max(1, ...sets.map((s) => s.count));
  const data = new Float32Array(sets.length * dim * width);
  sets.forEach(({ rows, count }, b) => {
    const base = b * dim * width;
    for (let j = 0; j < count; j++) for (let c = 0; c < dim; c++) data[base + c * width + j] = rows[j * dim + c]!;
  });
  return { data, width };
}
