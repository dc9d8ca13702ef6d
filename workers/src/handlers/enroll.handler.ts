import { randomUUID } from 'node:crypto';
import type { Container } from '../../../shared/src/container.js';
import { UnrecoverableJobError } from '../../../shared/src/domain/errors.js';
import type { JobData, JobHandler } from '../../../shared/src/domain/jobs.js';
import type { Describer, Descriptor } from '../recognition/ports.js';
import { describeOrRefuse } from './describe.js';

export interface EnrollDeps {
  c: Container;
  engine: Describer;
  /** Called after the rows are committed, so the owner's index can take the new vectors. */
  onEnrolled: (ownerId: string) => Promise<void>;
}

async function writeRows(deps: EnrollDeps, data: JobData<'enroll'>, described: { cid: string; source: string; d: Descriptor }[]) {
  return deps.c.db.transaction(async (tx) => {
    if (data.create) {
      const a = data.attrs as Record<string, unknown>;
      await tx.query(
        `insert into individuals (id, owner_id, kind, farm_id, tree_id, species, name, lat, lon, attrs)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict (id) do nothing`,
        [data.individual_id, data.owner_id, data.kind, a.farm_id ?? null, a.tree_id ?? null, a.species ?? null, a.name ?? null, a.lat ?? null, a.lon ?? null, a],
      );
    }
    const owned = await tx.query('select 1 from individuals where id = $1 and owner_id = $2 and deleted_at is null', [data.individual_id, data.owner_id]);
    if (!owned.rows.length) throw new UnrecoverableJobError('individual not found', 404, 'not_found');
    const images: { image_id: string; cid: string }[] = [];
    for (const { cid, source, d } of described) {
      // On a retry the row exists already; `do update` with no change makes `returning` give its id.
      const r = await tx.query<{ id: string }>(
        `insert into images (id, individual_id, owner_id, cid, source, in_record, width, height)
         values ($1, $2, $3, $4, $5, $6, $7, $8)
         on conflict (individual_id, cid) do update set source = images.source returning id`,
        [randomUUID(), data.individual_id, data.owner_id, cid, source, data.create, d.width, d.height],
      );
      const imageId = r.rows[0]!.id;
      await tx.query(
        `insert into descriptors (image_id, owner_id, model, model_version, global, local, quality)
         values ($1, $2, $3, $4, $5, $6, $7) on conflict do nothing`,
        [imageId, data.owner_id, d.model.name, d.model.version, Buffer.from(d.global.buffer, d.global.byteOffset, d.global.byteLength), d.local ? Buffer.from(d.local) : null, d.quality],
      );
      images.push({ image_id: imageId, cid });
    }
    return images;
  });
}

/**
 * Describe every photo, then write the individual, its images and their descriptors in one
 * transaction. Idempotent: a retry after a crash finds the same rows and adds none.
 */
export function enrollHandler(deps: EnrollDeps): JobHandler<'enroll'> {
  return async (data) => {
    const described: { cid: string; source: string; d: Descriptor }[] = [];
    for (const img of data.images) {
      described.push({ cid: img.cid, source: img.source, d: await describeOrRefuse(deps.c, deps.engine, img.cid, img.filename, data.kind) });
    }
    const images = await writeRows(deps, data, described);
    await deps.onEnrolled(data.owner_id);
    return {
      individual_id: data.individual_id,
      images: images.map((i, k) => ({ ...i, width: described[k]!.d.width, height: described[k]!.d.height, quality: described[k]!.d.quality })),
      model: described[0]!.d.model,
    };
  };
}
