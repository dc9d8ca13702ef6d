import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import type { Interval, Product } from '../../../shared/src/domain/care/catalogue.js';
import { fold } from '../../../shared/src/domain/care/normalize.js';
import type { resolveEntity, ResolvedEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import type { standingFor } from '../../../shared/src/access/standing.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { Logger } from '../../../shared/src/logger.js';
import type { CareLogRepo } from '../../../shared/src/repos/care-log.repo.js';
import { individualIdOf } from '../../../shared/src/domain/animal-did.js';
import type { UploadedFile } from '../middleware/multipart.js';
import type { CareService } from './care.service.js';
import type { MediaService } from './media.service.js';
import { careEntryView } from './care-views.js';
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

/** What the care log uses: its repository, the entity and access look-ups, products, uploads and blob release. */
export interface CareLogDeps {
  db: Queryable;
  entries: Pick<CareLogRepo, 'targetSpecies' | 'insert' | 'live' | 'blocking' | 'remove'>;
  /** entity-owner's resolveEntity: a target by id (an animal also by its animal_did). */
  resolveEntity: typeof resolveEntity;
  /** The access policy's standing of the caller towards the target's owner (owner, grant or none). */
  standingFor: typeof standingFor;
  care: Pick<CareService, 'getProducts' | 'bannedIn'>;
  media: Pick<MediaService, 'withUploads'>;
  /** blob-refs' releaseBlobs: a photo goes unless something else still names it. */
  releaseBlobs: (cids: readonly string[]) => Promise<unknown>;
  logger: Pick<Logger, 'error'>;
}

/** Care log (spec section 4 "Care"): log, list, withdrawal status, delete. */
export function createCareLogService(deps: CareLogDeps) {
  const { db, entries } = deps;

  /** The target if the caller owns it or holds a grant (write access when `write`); otherwise the one 404. */
  async function target(
    callerId: string,
    type: CareTarget,
    id: string,
    write: boolean,
  ): Promise<ResolvedEntity & { species: string | null }> {
    // An animal may be named by its animal_did as well as by its id.
    const entity = await deps.resolveEntity(db, type, (type === 'animal' && individualIdOf(id)) || id);
    if (!entity) throw ERRORS.notFound();
    const standing = await deps.standingFor(db, callerId, entity.owner_id, type);
    if (!standing || (write && standing === 'read')) throw ERRORS.notFound();
    return { ...entity, species: await entries.targetSpecies(db, entity.entity_id) };
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
      const insert = async (photoCid: string | null) =>
        careEntryView(
          await entries.insert(db, {
            author_id: callerId,
            owner_id: entity.owner_id,
            target_type: input.target_type,
            target_id: entity.entity_id,
            action: input.action?.trim() || null,
            product_id: product?.id ?? null,
            product_name: product?.name ?? (input.product_name?.trim() || null),
            dose: input.dose?.trim() || null,
            note: input.note?.trim() || null,
            photo_cid: photoCid,
            applied_at: applied,
            withdrawal,
            withdrawal_until: withdrawal?.until ?? null,
            banned: banned ? banned.map((b) => ({ id: b.id, name: b.name, severity: b.severity })) : null,
          }),
        );
      const entry = input.photo
        ? await deps.media.withUploads([input.photo], 'image', 'photo', (m) => insert(m[0]!.cid))
        : await insert(null);
      return { entry, banned_check: banned ? ('ok' as const) : ('unavailable' as const) };
    },

    async events(callerId: string, type: CareTarget, id: string) {
      const entity = await target(callerId, type, id, false);
      const rows = await entries.live(db, type, entity.entity_id);
      return { target_type: type, target_id: entity.entity_id, count: rows.length, events: rows.map(careEntryView) };
    },

    /** Whether harvest or sale is blocked now, until when, and by which entries (product, interval, source). */
    async withdrawal(callerId: string, type: CareTarget, id: string) {
      const entity = await target(callerId, type, id, false);
      const blocking = (await entries.blocking(db, type, entity.entity_id)).map((row) => ({
        care_id: row.id,
        ...(row.withdrawal as WithdrawalRecord),
      }));
      return { target_type: type, target_id: entity.entity_id, blocked: blocking.length > 0, until: blocking[0]?.until ?? null, blocking };
    },

    /** Deletes one entry of the caller's own; anything else (another's, absent, deleted) is the one 404. */
    async remove(callerId: string, careId: string) {
      if (!isUuid(careId)) throw ERRORS.notFound();
      const removed = await entries.remove(db, careId.toLowerCase(), callerId);
      if (!removed) throw ERRORS.notFound();
      // The tombstone no longer names the packaging photo: it goes unless something else still does.
      if (removed.old_cid)
        await deps.releaseBlobs([removed.old_cid]).catch((err: unknown) => deps.logger.error({ err }, 'care photo release failed'));
      return { deleted: removed.id, deleted_at: new Date(removed.deleted_at).toISOString() };
    },
  };
}

export type CareLogService = ReturnType<typeof createCareLogService>;
