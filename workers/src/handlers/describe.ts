import type { Container } from '../../../shared/src/container.js';
import { UnrecoverableJobError } from '../../../shared/src/domain/errors.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import type { Descriptor, RecognitionEngine, SubjectRequest } from '../vision/engine.js';

/**
 * Fetch a stored photo and describe it. Photos that can never work (undecodable, too small,
 * blurred, dark, or an enrolment photo with no animal in it) fail the job at once with a client error naming the file; anything else is
 * thrown as is, so the queue retries it.
 */
export async function describeOrRefuse(
  c: Container,
  engine: RecognitionEngine,
  cid: string,
  filename: string,
  kind: Kind,
  opts: { enforceQuality?: boolean; subject?: SubjectRequest } = {},
): Promise<Descriptor> {
  const bytes = await c.blobs.get(cid);
  if (!bytes) throw new Error(`blob ${cid} missing from the store`);
  try {
    return await engine.describe(bytes, { kind, ...opts });
  } catch (err) {
    const e = err as { unrecoverable?: boolean; code?: string; reasons?: string[]; message?: string };
    if (e?.code === 'image_unusable' || Array.isArray(e?.reasons)) {
      throw new UnrecoverableJobError(String(e.message), 422, 'image_unusable', {
        field: 'files',
        filename,
        reasons: (e.reasons ?? []).join(', '),
      });
    }
    if (e?.code === 'no_animal_found')
      throw new UnrecoverableJobError(String(e.message), 422, 'no_animal_found', { field: 'files', filename });
    if (e?.unrecoverable) throw new UnrecoverableJobError(String(e.message), 422, 'image_undecodable', { field: 'files', filename });
    throw err;
  }
}
