/**
 * Statements on `care_entries`: the care log of a tree, fruit or animal (spec section 4 "Care").
 * A deleted entry stays as a tombstone (its fields cleared, `deleted_at` and a deletion event id
 * set) so the target's timeline can show the deletion. Who may log, read or delete, and what a
 * product's withdrawal is, are decided in api/src/services/care-log.service.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../ports/database.port.js';

export type CareTargetType = 'tree' | 'fruit' | 'animal';

/** One care_entries row as the database returns it. */
export interface CareRow {
  id: string;
  author_id: string;
  owner_id: string;
  target_type: CareTargetType;
  target_id: string;
  action: string | null;
  product_id: string | null;
  product_name: string | null;
  dose: string | null;
  note: string | null;
  photo_cid: string | null;
  applied_at: Date | null;
  withdrawal: unknown;
  withdrawal_until: Date | null;
  banned: unknown;
  created_at: Date;
  deleted_at: Date | null;
  deletion_event_id: string | null;
}

/** A new care entry; `withdrawal` and `banned` are stored as JSON, null when there are none. */
export interface NewCareEntry extends Pick<
  CareRow,
  'author_id' | 'owner_id' | 'target_type' | 'target_id' | 'action' | 'product_id' | 'product_name' | 'dose' | 'note' | 'photo_cid'
> {
  applied_at: Date;
  withdrawal: object | null;
  withdrawal_until: string | null;
  banned: readonly object[] | null;
}

/** A tombstoned entry: when, and the packaging photo it no longer names. */
export interface RemovedCareEntry {
  id: string;
  deleted_at: Date;
  old_cid: string | null;
}

export const careLogRepo = {
  /** The species of an individual (null when it has none, or there is no such individual). */
  async targetSpecies(q: Queryable, individualId: string): Promise<string | null> {
    const r = await q.query<{ species: string | null }>('select species from individuals where id = $1', [individualId]);
    return r.rows[0]?.species ?? null;
  },

  /** Stores an entry under a fresh id. */
  async insert(q: Queryable, e: NewCareEntry): Promise<CareRow> {
    const r = await q.query<CareRow>(
      `insert into care_entries (id, author_id, owner_id, target_type, target_id, action, product_id, product_name, dose, note, photo_cid,
         applied_at, withdrawal, withdrawal_until, banned)
       values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15) returning *`,
      [
        randomUUID(),
        e.author_id,
        e.owner_id,
        e.target_type,
        e.target_id,
        e.action,
        e.product_id,
        e.product_name,
        e.dose,
        e.note,
        e.photo_cid,
        e.applied_at.toISOString(),
        e.withdrawal ? JSON.stringify(e.withdrawal) : null,
        e.withdrawal_until,
        e.banned ? JSON.stringify(e.banned) : null,
      ],
    );
    return r.rows[0]!;
  },

  /** The target's live entries, in the order they were applied. */
  async live(q: Queryable, type: CareTargetType, targetId: string): Promise<CareRow[]> {
    const r = await q.query<CareRow>(
      'select * from care_entries where target_type = $1 and target_id = $2 and deleted_at is null order by applied_at, created_at, id',
      [type, targetId],
    );
    return r.rows;
  },

  /** The target's live entries whose withdrawal runs past now, the longest first. */
  async blocking(q: Queryable, type: CareTargetType, targetId: string): Promise<CareRow[]> {
    const r = await q.query<CareRow>(
      `select * from care_entries where target_type = $1 and target_id = $2 and deleted_at is null
         and withdrawal_until is not null and withdrawal_until > now() order by withdrawal_until desc`,
      [type, targetId],
    );
    return r.rows;
  },

  /** Every entry of the target, tombstones included, in the order they were written (for its timeline). */
  async all(q: Queryable, type: CareTargetType, targetId: string): Promise<CareRow[]> {
    const r = await q.query<CareRow>('select * from care_entries where target_type = $1 and target_id = $2 order by created_at, id', [
      type,
      targetId,
    ]);
    return r.rows;
  },

  /**
   * Tombstones a live entry written by `authorId`: its fields are cleared and a deletion event id
   * is given. Null when there is no such live entry of that author.
   */
  async remove(q: Queryable, careId: string, authorId: string): Promise<RemovedCareEntry | null> {
    const r = await q.query<RemovedCareEntry>(
      `update care_entries e set deleted_at = now(), deletion_event_id = $3, action = null, product_id = null, product_name = null,
              dose = null, note = null, photo_cid = null, withdrawal = null, withdrawal_until = null, banned = null
         from (select id, photo_cid as old_cid from care_entries where id = $1) o
        where e.id = o.id and e.author_id = $2 and e.deleted_at is null returning e.id, e.deleted_at, o.old_cid`,
      [careId, authorId, randomUUID()],
    );
    return r.rows[0] ?? null;
  },
};

export type CareLogRepo = typeof careLogRepo;
