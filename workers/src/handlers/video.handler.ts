import type { Container } from '../../../shared/src/container.js';
import { UnrecoverableJobError } from '../../../shared/src/domain/errors.js';
import type { JobHandler } from '../../../shared/src/domain/jobs.js';
import { storeBlob } from '../../../shared/src/repos/evidence/blob-registry.js';
import { extractFrames, UndecodableVideoError, type Frame } from '../media/frames.js';
import type { Descriptor } from '../vision/engine.js';
import { selectFrames } from '../vision/frames.js';
import { scopeOfJob } from '../../../shared/src/access/owner-scope.js';
import { EVIDENCE, identifyDescriptors, storeQuery, type IdentifyDeps } from './identify.handler.js';
import { enrollHandler, type EnrollDeps } from './enroll.handler.js';

async function frames(c: Container, cid: string, max: number): Promise<Frame[]> {
  const bytes = await c.blobs.get(cid);
  if (!bytes) throw new Error(`blob ${cid} missing from the store`);
  try {
    return await extractFrames(bytes, { maxFrames: max, maxDecoded: c.config.VIDEO_MAX_FRAMES_DECODED });
  } catch (err) {
    if (err instanceof UndecodableVideoError) throw new UnrecoverableJobError(err.message, 422, 'video_undecodable', { field: 'file' });
    throw err;
  }
}

/**
 * Describe the candidate frames (no quality gate: blurred or dark ones are dropped by the
 * selection, not allowed to fail the whole video), then keep at most `max` that are usable and
 * not near-duplicates in embedding space.
 */
async function describeFrames(deps: IdentifyDeps, list: Frame[], kind: 'tree' | 'fruit' | 'animal', max: number): Promise<Descriptor[]> {
  const all: Descriptor[] = [];
  for (const f of list) {
    const d = await deps.engine.describe(f.jpeg, { kind, enforceQuality: false }).catch((e: { unrecoverable?: boolean }) => {
      if (e?.unrecoverable) return null;
      throw e;
    });
    if (d) all.push(d);
  }
  const kept = selectFrames(all, { max }).map((i) => all[i]!);
  if (!kept.length) throw new UnrecoverableJobError('no usable frame', 422, 'video_undecodable', { field: 'file' });
  return kept;
}

/**
 * A video is a multi-image query (identify) or a batch of new views (add_views). Frames are
 * chosen sharp and distinct, capped at `max_frames`; as views they are stored content-addressed
 * like any photo, so a retry finds the same blobs and rows.
 */
export function videoHandler(deps: IdentifyDeps & EnrollDeps): JobHandler<'video'> {
  const enroll = enrollHandler(deps);
  return async (data, ctx) => {
    if (data.purpose === 'identify') {
      // Twice the frames by pixel sharpness and distinctness, then the embedding picks the final set.
      const queries = await describeFrames(deps, await frames(deps.c, data.video_cid, data.max_frames * 2), data.kind, data.max_frames);
      const full = { query_id: data.query_id, frames_used: queries.length, ...(await identifyDescriptors(deps, data, queries)) };
      if (!data.query_id) {
        const { [EVIDENCE]: _internal, ...result } = full;
        return result;
      }
      return storeQuery(deps.c, { id: data.query_id, owner: scopeOfJob(data), kind: data.kind, cids: [data.video_cid] }, full);
    }
    const images = [];
    for (const f of await frames(deps.c, data.video_cid, data.max_frames)) {
      const { cid } = await storeBlob(deps.c, f.jpeg, 'image/jpeg');
      images.push({ cid, source: 'video', filename: `frame@${f.at.toFixed(2)}s` });
    }
    const out = await enroll(
      { owner_id: data.owner_id, individual_id: data.individual_id!, kind: data.kind, create: false, attrs: {}, images },
      ctx,
    );
    return { ...out, video_cid: data.video_cid, frames_used: images.length };
  };
}
