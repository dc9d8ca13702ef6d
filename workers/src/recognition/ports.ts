import type { Kind } from '../../../shared/src/domain/jobs.js';

/** What the vision engine computes for one photo. Stored per image and model version. */
export interface Descriptor {
  model: { name: string; version: string };
  /** L2-normalised global embedding, searched with HNSW. */
  global: Float32Array;
  /** Serialised local keypoints and descriptors, for geometric verification. */
  local: Uint8Array | null;
  quality: Record<string, unknown>;
  width: number;
  height: number;
}

/** The engine as the job handlers see it. */
export interface Describer {
  describe(bytes: Buffer, opts: { kind: Kind }): Promise<Descriptor>;
  readonly modelVersion: string;
}
