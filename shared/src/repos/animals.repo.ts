/**
 * Statements on animals as their owner sees them: a farm's list with each animal's photo count and
 * cover, one animal's summary, its 3D model row, and the rows a deletion removes. Who may do what
 * is the access policy's question, settled before these run.
 *
 * A farm's list (`countOnFarm`, `pageOnFarm`) takes the owner's `OwnerScope`, made from who is asking
 * (shared/src/access/owner-scope.ts); the rest read or remove one animal by id, one the access
 * policy has already let the caller see or change.
 */
import type { OwnerScope } from '../access/owner-scope.js';
import type { Queryable } from '../ports/database.port.js';

/** An animal as listed: its facts, how many photos it has, and its first photo. */
export interface AnimalSummaryRow {
  id: string;
  farm_id: string | null;
  species: string | null;
  name: string | null;
  created_at: Date | string;
  image_count: number;
  cover: { image_id: string; cid: string } | null;
}

export interface Model3dRow {
  status: 'built' | 'failed';
  reason_code: string | null;
  gate: unknown;
  trust: unknown;
  model_cid: string | null;
}

const SUMMARY_COLUMNS = `i.id, i.farm_id, i.species, i.name, i.created_at,
  (select count(*) from images im where im.individual_id = i.id)::int as image_count,
  (select json_build_object('image_id', im.id, 'cid', im.cid) from images im where im.individual_id = i.id order by im.created_at, im.id limit 1) as cover`;

/** An owner's live animals of one farm, of any of the species spellings when given. */
const ON_FARM = `from individuals i where i.owner_id = $1 and i.kind = 'animal' and i.deleted_at is null and i.farm_id = $2
  and ($3::text[] is null or i.species = any($3::text[]))`;

export const animalsRepo = {
  /** How many live animals the owner's farm holds (of these species spellings, when given). */
  async countOnFarm(db: Queryable, scope: OwnerScope, farmId: string, spellings: readonly string[] | null): Promise<number> {
    const r = await db.query<{ n: number }>(`select count(*)::int as n ${ON_FARM}`, [
      scope.ownerId,
      farmId,
      spellings ? [...spellings] : null,
    ]);
    return r.rows[0]?.n ?? 0;
  },

  /** One page of them, oldest enrolment first. */
  async pageOnFarm(
    db: Queryable,
    scope: OwnerScope,
    farmId: string,
    spellings: readonly string[] | null,
    limit: number,
    offset: number,
  ): Promise<AnimalSummaryRow[]> {
    const r = await db.query<AnimalSummaryRow>(`select ${SUMMARY_COLUMNS} ${ON_FARM} order by i.created_at, i.id limit $4 offset $5`, [
      scope.ownerId,
      farmId,
      spellings ? [...spellings] : null,
      limit,
      offset,
    ]);
    return r.rows;
  },

  /** One animal's summary by id (null: none). */
  async summary(db: Queryable, id: string): Promise<AnimalSummaryRow | null> {
    const r = await db.query<AnimalSummaryRow>(`select ${SUMMARY_COLUMNS} from individuals i where i.id = $1`, [id]);
    return r.rows[0] ?? null;
  },

  /** The animal's 3D model row, if one was ever attempted. */
  async model3d(db: Queryable, id: string): Promise<Model3dRow | null> {
    const r = await db.query<Model3dRow>(
      'select status, reason_code, gate, trust, model_cid from animal_models3d where individual_id = $1',
      [id],
    );
    return r.rows[0] ?? null;
  },

  /** How many photos and embeddings a deletion will remove. */
  async photoCounts(db: Queryable, id: string): Promise<{ images: number; descriptors: number }> {
    const r = await db.query<{ images: number; descriptors: number }>(
      `select (select count(*) from images where individual_id = $1)::int as images,
              (select count(*) from descriptors d join images im on im.id = d.image_id where im.individual_id = $1)::int as descriptors`,
      [id],
    );
    return r.rows[0] ?? { images: 0, descriptors: 0 };
  },

  /** Removes the animal's photos, embeddings and 3D model, and marks it deleted (its chain stays). */
  async remove(db: Queryable, id: string): Promise<void> {
    await db.query('delete from descriptors where image_id in (select id from images where individual_id = $1)', [id]);
    await db.query('delete from images where individual_id = $1', [id]);
    await db.query('delete from animal_models3d where individual_id = $1', [id]);
    await db.query('update individuals set deleted_at = now() where id = $1', [id]);
  },
};

export type AnimalsRepo = typeof animalsRepo;
