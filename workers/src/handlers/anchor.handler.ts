import type { Container } from '../../../shared/src/container.js';
import { UnrecoverableJobError } from '../../../shared/src/domain/errors.js';
import type { JobHandler } from '../../../shared/src/domain/jobs.js';
import { anchorChain } from '../../../shared/src/repos/evidence/anchor-store.js';
import { ENTITY_TYPES, type EntityType } from '../../../shared/src/repos/evidence/chain-store.js';
import { resolveEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import { ownedBy } from '../../../shared/src/access/owned.js';
import { scopeOfJob } from '../../../shared/src/access/owner-scope.js';

/**
 * The `anchor` job: anchor the entity's whole current chain root with the configured backend and
 * record the trace in `anchors` (the anchor callback). The owner is checked again here, because
 * a job payload is only as trustworthy as whoever enqueued it. Network trouble throws (retry);
 * a refusal by the backend is recorded as `failed` and returned.
 */
export function anchorHandler(c: Container): JobHandler<'anchor'> {
  return async (data) => {
    if (!(ENTITY_TYPES as readonly string[]).includes(data.entity_type)) {
      throw new UnrecoverableJobError('unknown entity type', 422, 'validation_failed', { field: 'entity_type', reason: 'unknown' });
    }
    const entity = ownedBy(await resolveEntity(c.db, data.entity_type as EntityType, data.entity_id), scopeOfJob(data));
    if (!entity) throw new UnrecoverableJobError('not the owner', 404, 'not_found');
    const anchor = await anchorChain(c.db, c.anchor, { ...data, entity_id: entity.entity_id });
    return { entity_type: data.entity_type, entity_id: entity.entity_id, event_id: data.event_id, anchor };
  };
}
