import { randomUUID } from 'node:crypto';
import type { Container } from '../../../shared/src/container.js';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import type { Interval, Product } from '../../../shared/src/domain/care/catalogue.js';
import { fold } from '../../../shared/src/domain/care/normalize.js';
import { releaseBlobs } from '../../../shared/src/repos/evidence/blob-refs.js';
import { resolveEntity, type ResolvedEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import { individualIdOf } from '../../../shared/src/domain/animal-did.js';
import type { UploadedFile } from '../middleware/multipart.js';
import type { CareService } from './care.service.js';
import { standingFor } from './grants.service.js';
import type { MediaService } from './media.service.js';
import { careEntryView, type CareRow } from './care-views.js';
import { isUuid } from '../../../shared/src/domain/ids.js';

export const CARE_TARGETS = ['tree', 'fruit', 'animal'] as const;
export type CareTarget = (typeof CARE_TARGETS)[number];

export interface CareLogInput {
  target_type: CareTarget;
  target_id: string;
  action?: string;
  product_id?: string;
  product_name?: string;
  dose?: string;
  note?: string;
  applied_at?: Date;
  interval_days?: number;
  photo?: UploadedFile;
}

/** The withdrawal a logged product imposes, with where its interval comes from. */
export interface WithdrawalRecord {
  product_id: string | null;
  product_name: string;
  kind: Interval['kind'];
  target: string;
  use: string;
  interval_days: number;
  source: Product['source'] | { title: string; article: string; url: null };
  until: string;
}

const DAY_MS = 86_400_000;

/**
 * The interval of `product` that applies to this entity: animals get withdrawal intervals,
 * trees and fruit pre-harvest ones; one naming the entity's species wins, otherwise the longest
 * (when unsure, block longer rather than shorter).
 */
export function applicableInterval(product: Product, kind: CareTarget, species: string | null): Interval | null {
  const wanted = kind === 'animal' ? 'withdrawal' : 'pre_harvest';
  const pool = product.intervals.filter((i) => i.kind === wanted);
  if (!pool.length) return null;
  const sp = species ? fold(species) : '';
  const own = pool.filter((i) => sp && fold(i.target) === sp);
  return (own.length ? own : pool).reduce((a, b) => (b.days > a.days ? b : a));
}

/** Care log (spec section 4 "Care"): log, list, withdrawal status, delete. */
export function createCareLogService(c: Container, deps: { care: CareService; media: MediaService }) {
  const { db } = c;

  /** The target if the caller owns it or holds a grant (write access when `write`); otherwise the one 404. */
  async function target(
    callerId: string,
    type: CareTarget,
    id: string,
    write: boolean,
  ): Promise<ResolvedEntity & { species: string | null }> {
    // An animal may be named by its animal_did as well as by its id.
    const entity = await resolveEntity(db, type, (type === 'animal' && individualIdOf(id)) || id);
    if (!entity) throw ERRORS.notFound();
    const standing = await standingFor(db, callerId, entity.owner_id, type);
    if (!standing || (write && standing === 'read')) throw ERRORS.notFound();
    const r = await db.query<{ species: string | null }>('select species from individuals where id = $1', [entity.entity_id]);
    return { ...entity, species: r.rows[0]?.species ?? null };
  }

  /** Product from the store by id, or by a name that names exactly one product. */
  async function productFor(input: CareLogInput): Promise<Product | null> {
    const store = await deps.care.getProducts();
    if (input.product_id) {
      const p = store?.find(input.product_id);
      if (!p) throw new AppError(422, 'care_product_unknown', { product_id: input.product_id });
      return p;
    }
    if (!input.product_name || !store) return null;
    const named = store.lookup(input.product_name).filter((h) => h.by === 'name');
    return named.length === 1 ? named[0]!.product : null;
  }

  function withdrawalOf(
    input: CareLogInput,
    product: Product | null,
    kind: CareTarget,
    species: string | null,
    applied: Date,
  ): WithdrawalRecord | null {
    const name = product?.name ?? input.product_name ?? input.action ?? '';
    const fromProduct = product ? applicableInterval(product, kind, species) : null;
    const days = Math.max(fromProduct?.days ?? 0, input.interval_days ?? 0);
    if (!fromProduct && input.interval_days === undefined) return null;
    const useLabel = fromProduct && fromProduct.days >= (input.interval_days ?? 0);
    return {
      product_id: product?.id ?? null,
      product_name: name,
      kind: fromProduct?.kind ?? (kind === 'animal' ? 'withdrawal' : 'pre_harvest'),
      target: fromProduct?.target ?? species ?? kind,
      use: fromProduct?.use ?? (kind === 'animal' ? 'meat' : 'harvest'),
      interval_days: days,
      source: useLabel
        ? product!.source
        : { title: 'interval_days given by the farmer when logging', article: 'care log entry', url: null },
      until: new Date(applied.getTime() + days * DAY_MS).toISOString(),
    };
  }

  return {
    async log(callerId: string, input: CareLogInput) {
      if (!input.product_id && !input.product_name?.trim() && !input.action?.trim())
        throw new AppError(422, 'care_product_missing', { field: 'product_name' });
      const applied = input.applied_at ?? new Date();
      if (applied.getTime() > Date.now() + 5 * 60_000) throw new AppError(422, 'care_applied_in_future', { field: 'applied_at' });
      const entity = await target(callerId, input.target_type, input.target_id, true);
      const product = await productFor(input);
      const withdrawal = withdrawalOf(input, product, input.target_type, entity.species, applied);
      const bannedText = [product?.name, ...(product?.active_ingredients ?? []), input.product_name, input.note]
        .filter(Boolean)
        .join(' ; ');
      const banned = (await deps.care.bannedIn(bannedText)) ?? null;
      const insert = async (photoCid: string | null) => {
        const r = await db.query<CareRow>(
          `insert into care_entries (id, author_id, owner_id, target_type, target_id, action, product_id, product_name, dose, note, photo_cid,
             applied_at, withdrawal, withdrawal_until, banned)
           values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15) returning *`,
          [
            randomUUID(),
            callerId,
            entity.owner_id,
            input.target_type,
            entity.entity_id,
            input.action?.trim() || null,
            product?.id ?? null,
            product?.name ?? (input.product_name?.trim() || null),
            input.dose?.trim() || null,
            input.note?.trim() || null,
            photoCid,
            applied.toISOString(),
            withdrawal ? JSON.stringify(withdrawal) : null,
            withdrawal?.until ?? null,
            banned ? JSON.stringify(banned.map((b) => ({ id: b.id, name: b.name, severity: b.severity }))) : null,
          ],
        );
        return careEntryView(r.rows[0]!);
      };
      const entry = input.photo
        ? await deps.media.withUploads([input.photo], 'image', 'photo', (m) => insert(m[0]!.cid))
        : await insert(null);
      return { entry, banned_check: banned ? ('ok' as const) : ('unavailable' as const) };
    },

    async events(callerId: string, type: CareTarget, id: string) {
      const entity = await target(callerId, type, id, false);
      const r = await db.query<CareRow>(
        'select * from care_entries where target_type = $1 and target_id = $2 and deleted_at is null order by applied_at, created_at, id',
        [type, entity.entity_id],
      );
      return { target_type: type, target_id: entity.entity_id, count: r.rows.length, events: r.rows.map(careEntryView) };
    },

    /** Whether harvest or sale is blocked now, until when, and by which entries (product, interval, source). */
    async withdrawal(callerId: string, type: CareTarget, id: string) {
      const entity = await target(callerId, type, id, false);
      const r = await db.query<CareRow>(
        `select * from care_entries where target_type = $1 and target_id = $2 and deleted_at is null
           and withdrawal_until is not null and withdrawal_until > now() order by withdrawal_until desc`,
        [type, entity.entity_id],
      );
      const blocking = r.rows.map((row) => ({ care_id: row.id, ...(row.withdrawal as WithdrawalRecord) }));
      return { target_type: type, target_id: entity.entity_id, blocked: blocking.length > 0, until: blocking[0]?.until ?? null, blocking };
    },

    /** Deletes one entry of the caller's own; anything else (another's, absent, deleted) is the one 404. */
    async remove(callerId: string, careId: string) {
      if (!isUuid(careId)) throw ERRORS.notFound();
      const r = await db.query<{ id: string; deleted_at: Date; old_cid: string | null }>(
        `update care_entries e set deleted_at = now(), deletion_event_id = $3, action = null, product_id = null, product_name = null,
                dose = null, note = null, photo_cid = null, withdrawal = null, withdrawal_until = null, banned = null
           from (select id, photo_cid as old_cid from care_entries where id = $1) o
          where e.id = o.id and e.author_id = $2 and e.deleted_at is null returning e.id, e.deleted_at, o.old_cid`,
        [careId.toLowerCase(), callerId, randomUUID()],
      );
      if (!r.rows[0]) throw ERRORS.notFound();
      // The tombstone no longer names the packaging photo: it goes unless something else still does.
      const old = r.rows[0].old_cid;
      if (old) await releaseBlobs(c, [old]).catch((err) => c.logger.error({ err }, 'care photo release failed'));
      return { deleted: r.rows[0].id, deleted_at: new Date(r.rows[0].deleted_at).toISOString() };
    },
  };
}

export type CareLogService = ReturnType<typeof createCareLogService>;
