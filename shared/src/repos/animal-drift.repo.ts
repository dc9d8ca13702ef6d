/**
 * The reads of the drift report (which animals of a farm are weakening, which look alike): the
 * farm's live animals, their enrolled photos' global embeddings, and the owner's stored animal
 * answers. Each read is one owner's own, newest first and bounded, so a report's cost is bounded;
 * a farm's animals and an account's answers are its own (shared/src/access/policy.ts), so each
 * read takes the caller's `OwnerScope`.
 */
import type { OwnerScope } from '../access/owner-scope.js';
import type { Queryable } from '../ports/database.port.js';

export interface FarmEmbeddingRow {
  individual_id: string;
  global: Uint8Array;
  model_version: string;
  /** Keypoints the photo's local features found (null: not recorded). */
  keypoints: number | null;
}

export interface StoredAnimalAnswer<R = Record<string, unknown>, E = unknown> {
  result: R;
  evidence: E;
  created_at: Date | string;
}

export const animalDriftRepo = {
  /** The farm's live animals with their names. */
  async farmAnimals(db: Queryable, scope: OwnerScope, farmId: string): Promise<{ id: string; name: string | null }[]> {
    const r = await db.query<{ id: string; name: string | null }>(
      `select id, name from individuals where owner_id = $1 and kind = 'animal' and farm_id = $2 and deleted_at is null`,
      [scope.ownerId, farmId],
    );
    return r.rows;
  },

  /** The newest `limit` global embeddings of the farm's live animals' photos, of every model version. */
  async farmEmbeddings(db: Queryable, scope: OwnerScope, farmId: string, limit: number): Promise<FarmEmbeddingRow[]> {
    const r = await db.query<FarmEmbeddingRow>(
      `select im.individual_id, d.global, d.model_version, (d.quality->>'keypoints')::int as keypoints
         from descriptors d join images im on im.id = d.image_id join individuals i on i.id = im.individual_id
        where i.owner_id = $1 and i.kind = 'animal' and i.farm_id = $2 and i.deleted_at is null
        order by d.created_at desc limit $3`,
      [scope.ownerId, farmId, limit],
    );
    return r.rows;
  },

  /** The owner's newest `limit` stored animal answers. */
  async recentAnswers<R, E>(db: Queryable, scope: OwnerScope, limit: number): Promise<StoredAnimalAnswer<R, E>[]> {
    const r = await db.query<StoredAnimalAnswer<R, E>>(
      `select result, evidence, created_at from identify_queries where owner_id = $1 and kind = 'animal' and result is not null order by created_at desc limit $2`,
      [scope.ownerId, limit],
    );
    return r.rows;
  },
};
