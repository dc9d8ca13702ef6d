/**
 * Runs the served-pipeline comparison of served-gate.ts for a trained candidate: every held-out
 * gallery photo is identified by the engine through the served space and through the
 * candidate's, photo hidden and then (for individuals the candidate never trained on) its individual
 * hidden, and the paired outcomes are judged.
 */
import type { Container } from '../../../shared/src/container.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import type { Descriptor, RecognitionEngine } from '../vision/engine.js';
import type { ModelRef } from '../vision/embed.js';
import { openSetSamples, type HeldOutPhoto } from '../vision/open-set.js';
import { toBytes } from '../recognition/bytes.js';
import { descriptorsRepo } from '../../../shared/src/repos/descriptors.repo.js';
import { judgeServed, spaceGallery, type GateDecision, type GateOptions, type SpaceRow } from './served-gate.js';

export interface ComparedSpace {
  /** Each sample's vector in this space, in sample order (null: not enrolled, or the base space). */
  vectors: readonly (Float32Array | null)[];
  /** Set when the space is a fine-tuned backbone: its cosine reaches the engine as `learned`. */
  learned?: ModelRef;
}

export async function compareServed(
  c: Container,
  engine: RecognitionEngine,
  kind: Kind,
  samples: readonly { label: string; imageId?: string; base: Float32Array | null }[],
  test: ReadonlySet<number>,
  served: ComparedSpace,
  candidate: ComparedSpace,
  opts: GateOptions = {},
  /** Individuals the candidate never trained on: the only ones asked hidden (open set). */
  strangers?: ReadonlySet<string>,
): Promise<GateDecision> {
  const enrolled = samples.flatMap((s, i) => (s.imageId && s.base ? [i] : []));
  const ids = enrolled.map((i) => samples[i]!.imageId!);
  const stored = await descriptorsRepo.localFeatures(c.db, ids, engine.model);
  const local = new Map(stored.filter((x) => x.local).map((x) => [x.image_id, toBytes(x.local!)]));
  const localFeatures = (want: readonly string[]) =>
    new Map(want.flatMap((id) => (local.has(id) ? [[id, local.get(id)!] as [string, Uint8Array]] : [])));
  const photosOf = new Map<string, string[]>();
  for (const i of enrolled) photosOf.set(samples[i]!.label, [...(photosOf.get(samples[i]!.label) ?? []), samples[i]!.imageId!]);

  const run = async (space: ComparedSpace) => {
    const rows: SpaceRow[] = enrolled.map((i) => ({
      id: samples[i]!.imageId!,
      individualId: samples[i]!.label,
      base: samples[i]!.base!,
      ...(space.vectors[i] ? { vector: space.vectors[i]! } : {}),
    }));
    const heldOut: HeldOutPhoto[] = [...test]
      .filter((i) => samples[i]!.imageId && samples[i]!.base)
      .map((i) => {
        const s = samples[i]!;
        const descriptor: Descriptor = {
          model: engine.model,
          models: [],
          subject: null,
          global: s.base!,
          local: local.get(s.imageId!) ?? new Uint8Array(0),
          quality: { width: 0, height: 0, sharpness: 0, brightness: 0, reasons: [] },
          width: 0,
          height: 0,
        };
        return {
          imageId: s.imageId!,
          individualId: s.label,
          descriptor,
          gallery: spaceGallery(rows, space.vectors[i] ?? null, localFeatures, space.learned),
        };
      });
    const openSetOf = strangers ? (ind: string) => strangers.has(ind) : undefined;
    return openSetSamples(
      engine,
      { kind, gallery: heldOut[0]?.gallery ?? spaceGallery(rows, null, localFeatures), ...(openSetOf ? { openSetOf } : {}) },
      heldOut,
      (ind) => photosOf.get(ind) ?? [],
    );
  };
  return judgeServed(await run(served), await run(candidate), opts);
}
