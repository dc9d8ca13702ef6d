/**
 * Every statement on the owners' learned versions: `learned_models` (migration 045: a trained
 * metric or fine-tuned backbone per owner, kind and version, with its status) and
 * `learned_embeddings` (migration 046: each enrolled photo embedded once by a backbone version).
 *
 * The rules (one adopted version per owner and kind, the next version number, what a rollback
 * adopts again) are the learning loop's (workers/src/learn/store.ts); it runs these statements
 * in its own transactions and passes the transaction's handle.
 *
 * A learned version and its embeddings are their account's own (shared/src/access/policy.ts):
 * every statement takes the owner's `OwnerScope`, never a bare owner id.
 */
import type { OwnerScope } from '../access/owner-scope.js';
import type { Kind } from '../domain/jobs.js';
import type { Queryable } from '../ports/database.port.js';

export type LearnedStatus = 'adopted' | 'rejected' | 'retired' | 'rolled_back';

/** A stored version: `params` is a linear metric's bytes or a backbone's ONNX bytes, as its recipe says. */
export interface LearnedModelRow {
  owner_id: string;
  kind: Kind;
  version: number;
  recipe: string;
  base_model: string;
  base_version: string;
  status: LearnedStatus;
  params: Uint8Array;
  report: Record<string, unknown>;
}

export interface NewLearnedModel extends LearnedModelRow {
  /** The job that trained it, so a retried job finds it instead of storing a second one. */
  job_key: string | null;
}

const COLS = 'owner_id, kind, version, recipe, base_model, base_version, status, params, report';

export const learnedModelsRepo = {
  /** The adopted version of an owner's kind trained on one base model, if any. */
  async adopted(db: Queryable, scope: OwnerScope, kind: Kind, base: { name: string; version: string }): Promise<LearnedModelRow | null> {
    const r = await db.query<LearnedModelRow>(
      `select ${COLS} from learned_models where owner_id = $1 and kind = $2 and status = 'adopted' and base_model = $3 and base_version = $4`,
      [scope.ownerId, kind, base.name, base.version],
    );
    return r.rows[0] ?? null;
  },

  /** The version a job stored under `jobKey`, if any. */
  async byJob(db: Queryable, scope: OwnerScope, kind: Kind, jobKey: string): Promise<LearnedModelRow | null> {
    const r = await db.query<LearnedModelRow>(`select ${COLS} from learned_models where owner_id = $1 and kind = $2 and job_key = $3`, [
      scope.ownerId,
      kind,
      jobKey,
    ]);
    return r.rows[0] ?? null;
  },

  /** A version's recipe, report and when it was stored (its bytes are not read). */
  async facts(
    db: Queryable,
    scope: OwnerScope,
    kind: Kind,
    version: number,
  ): Promise<{ recipe: string; report: Record<string, unknown>; created_at: Date | string } | null> {
    const r = await db.query<{ recipe: string; report: Record<string, unknown>; created_at: Date | string }>(
      'select recipe, report, created_at from learned_models where owner_id = $1 and kind = $2 and version = $3',
      [scope.ownerId, kind, version],
    );
    return r.rows[0] ?? null;
  },

  /** Of `imageIds`, the photos enrolled after the version was stored. */
  async imagesAfter(db: Queryable, scope: OwnerScope, v: { kind: Kind; version: number }, imageIds: readonly string[]): Promise<string[]> {
    const r = await db.query<{ id: string }>(
      `select i.id from images i where i.id = any($1::uuid[])
        and i.created_at > (select created_at from learned_models where owner_id = $2 and kind = $3 and version = $4)`,
      [imageIds, scope.ownerId, v.kind, v.version],
    );
    return r.rows.map((x) => x.id);
  },

  /** Every version of an owner's kind without its bytes, newest first. */
  async list(db: Queryable, scope: OwnerScope, kind: Kind): Promise<Omit<LearnedModelRow, 'params'>[]> {
    const r = await db.query<Omit<LearnedModelRow, 'params'>>(
      `select owner_id, kind, version, recipe, base_model, base_version, status, report from learned_models where owner_id = $1 and kind = $2 order by version desc`,
      [scope.ownerId, kind],
    );
    return r.rows;
  },

  /** Holds, until the transaction ends, every other writer of an owner's kind's versions. */
  async lock(tx: Queryable, scope: OwnerScope, kind: Kind): Promise<void> {
    await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`learned:${scope.ownerId}:${kind}`]);
  },

  /** The version number the next stored version of an owner's kind takes. */
  async nextVersion(db: Queryable, scope: OwnerScope, kind: Kind): Promise<number> {
    const next = await db.query<{ n: number }>(
      'select coalesce(max(version), 0) + 1 as n from learned_models where owner_id = $1 and kind = $2',
      [scope.ownerId, kind],
    );
    return Number(next.rows[0]!.n);
  },

  /** Retires the adopted version of an owner's kind, if any. */
  async retireAdopted(db: Queryable, scope: OwnerScope, kind: Kind): Promise<void> {
    await db.query(
      `update learned_models set status = 'retired', changed_at = now() where owner_id = $1 and kind = $2 and status = 'adopted'`,
      [scope.ownerId, kind],
    );
  },

  /** A new version of the scope's account (`m` names no owner: the scope's is the one stored). */
  async insert(db: Queryable, scope: OwnerScope, m: Omit<NewLearnedModel, 'owner_id'>): Promise<void> {
    await db.query(
      `insert into learned_models (owner_id, kind, version, recipe, base_model, base_version, status, params, report, job_key)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [scope.ownerId, m.kind, m.version, m.recipe, m.base_model, m.base_version, m.status, Buffer.from(m.params), m.report, m.job_key],
    );
  },

  /** The adopted version number of an owner's kind, whatever base it was trained on; null when none is. */
  async adoptedNumber(db: Queryable, scope: OwnerScope, kind: Kind): Promise<number | null> {
    const cur = await db.query<{ version: number }>(
      `select version from learned_models where owner_id = $1 and kind = $2 and status = 'adopted'`,
      [scope.ownerId, kind],
    );
    return cur.rows[0]?.version ?? null;
  },

  /** The adopted version and its recipe for an owner's kind, whatever base it was trained on; null when none is. */
  async adoptedRecipe(db: Queryable, scope: OwnerScope, kind: Kind): Promise<{ version: number; recipe: string } | null> {
    const r = await db.query<{ version: number; recipe: string }>(
      `select version, recipe from learned_models where owner_id = $1 and kind = $2 and status = 'adopted'`,
      [scope.ownerId, kind],
    );
    const row = r.rows[0];
    return row ? { version: Number(row.version), recipe: row.recipe } : null;
  },

  async markRolledBack(db: Queryable, scope: OwnerScope, kind: Kind, version: number): Promise<void> {
    await db.query(
      `update learned_models set status = 'rolled_back', changed_at = now() where owner_id = $1 and kind = $2 and version = $3`,
      [scope.ownerId, kind, version],
    );
  },

  /** Adopts again the newest retired version older than `before`; answers its number, or null when there is none. */
  async readoptRetiredBefore(db: Queryable, scope: OwnerScope, kind: Kind, before: number): Promise<number | null> {
    const prev = await db.query<{ version: number }>(
      `update learned_models set status = 'adopted', changed_at = now() where id = (
         select id from learned_models where owner_id = $1 and kind = $2 and status = 'retired' and version < $3 order by version desc limit 1)
       returning version`,
      [scope.ownerId, kind, before],
    );
    return prev.rows[0]?.version ?? null;
  },

  /** The stored backbone embeddings of `imageIds` under a version. */
  async embeddings(
    db: Queryable,
    scope: OwnerScope,
    v: { kind: Kind; version: number },
    imageIds: readonly string[],
  ): Promise<{ image_id: string; vector: Uint8Array }[]> {
    const r = await db.query<{ image_id: string; vector: Uint8Array }>(
      'select image_id, vector from learned_embeddings where owner_id = $1 and kind = $2 and version = $3 and image_id = any($4::uuid[])',
      [scope.ownerId, v.kind, v.version, imageIds],
    );
    return r.rows;
  },

  /** Keeps one photo's embedding under a version (a second store of it is a no-op). */
  async storeEmbedding(
    db: Queryable,
    scope: OwnerScope,
    v: { kind: Kind; version: number },
    imageId: string,
    vector: Uint8Array,
  ): Promise<void> {
    await db.query(
      'insert into learned_embeddings (owner_id, kind, version, image_id, vector) values ($1, $2, $3, $4, $5) on conflict do nothing',
      [scope.ownerId, v.kind, v.version, imageId, vector],
    );
  },
};
