/**
 * Identify through an owner's fine-tuned backbone (recipe finetuned-mobilenetv2-v1): the
 * shortlist is searched in the model's own space. Every enrolled photo is run through the model
 * once and kept in `learned_embeddings` (migration 046), so a restart or a new enrolment only
 * embeds what is new; the HNSW index over them is a cache like every other one.
 *
 * As with the linear metric (gallery.ts), the model only chooses and orders the shortlist: each
 * hit's `similarity` stays the base model's cosine, the scale the calibration was fitted on, so
 * a model trained on the gallery cannot inflate the probability of a match.
 */
import { join } from 'node:path';
import type { Container } from '../../../shared/src/container.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { learnedModelsRepo } from '../../../shared/src/repos/learned-models.repo.js';
import type { GalleryHit, GalleryLookup, RecognitionEngine } from '../vision/engine.js';
import { cosine } from '../vision/embed.js';
import { decodeImage } from '../vision/intake.js';
import { checksumIds, openOwnerIndex, type IndexFilter, type OwnerIndex } from '../index/owner-index.js';
import { bytesToVector, vectorToBytes } from '../recognition/bytes.js';
import { OwnerBackbone, type BackboneShape } from './backbone.js';
import { subjectCrop } from './backbone-train.js';
import { poolImageIds, poolRows, type PoolRow } from './pool-rows.js';
import { LEARNED_MODEL_NAME, type LearnedVersion } from './store.js';
import type { SearchPool } from '../../../shared/src/access/pool-owners.js';

/** Keeps one enrolled photo's embedding under a backbone version (a second store of it is a no-op). */
export async function storeLearnedEmbedding(
  db: Queryable,
  v: Pick<LearnedVersion, 'owner' | 'kind' | 'version'>,
  imageId: string,
  vector: Float32Array,
): Promise<void> {
  await learnedModelsRepo.storeEmbedding(db, v.owner, v, imageId, vectorToBytes(vector));
}

export function createBackboneGalleries(c: Container, engine: RecognitionEngine) {
  const models = new Map<string, Promise<OwnerBackbone>>();
  const cache = new Map<string, { index: OwnerIndex; base: Map<string, Float32Array>; stamp: string }>();

  const modelOf = (v: LearnedVersion): Promise<OwnerBackbone> => {
    const key = `${v.owner.ownerId}:${v.kind}:${v.version}`;
    let m = models.get(key);
    if (!m) {
      m = OwnerBackbone.fromBytes(v.backbone!, v.report.shape as BackboneShape);
      m.catch(() => models.delete(key));
      models.set(key, m);
    }
    return m;
  };

  /** Vectors of `rows` under the version: stored ones read back, missing ones embedded and stored. */
  async function vectorsFor(v: LearnedVersion, rows: readonly PoolRow[]): Promise<Map<string, Float32Array>> {
    const have = await learnedModelsRepo.embeddings(
      c.db,
      v.owner,
      v,
      rows.map((r) => r.image_id),
    );
    const out = new Map(have.map((r) => [r.image_id, bytesToVector(r.vector)]));
    const model = await modelOf(v);
    for (const r of rows) {
      if (out.has(r.image_id)) continue;
      const bytes = await c.blobs.get(r.cid);
      const img = bytes ? await decodeImage(bytes).catch(() => null) : null;
      // A photo whose blob is gone cannot be shortlisted by the model; the base gallery still has it.
      if (!img) continue;
      const [vec] = await model.embed([await subjectCrop(img, v.kind, r.subject?.box ?? null)]);
      await storeLearnedEmbedding(c.db, v, r.image_id, vec!);
      out.set(r.image_id, vec!);
    }
    return out;
  }

  return {
    /** The gallery over `owners`' pools searched with the caller's adopted backbone version `v`. */
    async gallery(v: LearnedVersion, owners: SearchPool, filter: IndexFilter, base: GalleryLookup): Promise<GalleryLookup> {
      const ids = await poolImageIds(c, engine, owners, filter.kind);
      const modelVersion = `${engine.model.version}+owner-backbone-${v.version}`;
      const key = `${v.owner.ownerId}:${filter.kind}:${[...owners].sort().join(',')}`;
      // What the database holds now; the index is rebuilt (new photos embedded) when it changes.
      const stamp = `${modelVersion}:${ids.length}:${checksumIds(ids)}`;
      let hit = cache.get(key);
      if (!hit || hit.stamp !== stamp) {
        const rows = await poolRows(c, engine, owners, filter.kind);
        const vectors = await vectorsFor(v, rows);
        // Rows the model could not embed are left out, so the expectation counts what was indexed.
        const kept = rows.filter((r) => vectors.has(r.image_id));
        const { index } = await openOwnerIndex({
          root: join(c.config.indexDir, 'learned'),
          ownerId: `backbone:${key}`,
          modelVersion,
          dim: (v.report.shape as BackboneShape).dim,
          expected: { modelVersion, count: kept.length, idsChecksum: checksumIds(kept.map((r) => r.image_id)) },
          loadRows: async () =>
            kept.map((r) => ({
              id: r.image_id,
              individualId: r.individual_id,
              kind: filter.kind,
              farmId: r.farm_id,
              treeId: r.tree_id,
              vector: vectors.get(r.image_id)!,
            })),
        });
        hit = { index, base: new Map(rows.map((r) => [r.image_id, bytesToVector(r.global)])), stamp };
        cache.set(key, hit);
      }
      const { index, base: baseVectors } = hit;
      const model = await modelOf(v);
      return {
        learned: { name: LEARNED_MODEL_NAME, version: String(v.version) },
        async search(global, k, query): Promise<GalleryHit[]> {
          // Without the query's preview (a descriptor not made by describe) the model cannot see it.
          if (!query?.preview) return base.search(global, k, query);
          const [q] = await model.embed([await subjectCrop(query.preview, filter.kind, query.subject?.box ?? null, query.width)]);
          return index.search(q!, k, filter).map((h) => {
            const b = baseVectors.get(h.id);
            return { ...h, similarity: b ? cosine(global, b) : -1, learned: h.similarity };
          });
        },
        localFeatures: (ids) => base.localFeatures(ids),
      };
    },
  };
}

export type BackboneGalleries = ReturnType<typeof createBackboneGalleries>;
