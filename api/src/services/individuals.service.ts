import { randomUUID } from 'node:crypto';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import type { Caller } from '../http/route.js';
import type { UploadedFile } from '../middleware/multipart.js';
import type { JobOutcome, JobsService } from './jobs.service.js';
import type { MediaService } from './media.service.js';

export interface EnrollInput {
  kind: Kind;
  attrs: Record<string, unknown>;
  files: UploadedFile[];
}

/** Enrolment: photos into the store, an `enroll` job for the worker, the job's answer back. */
export function createIndividualsService(deps: { media: MediaService; jobs: JobsService }) {
  return {
    async enroll(caller: Caller, input: EnrollInput): Promise<JobOutcome> {
      return deps.media.withUploads(input.files, 'image', 'files', (media) =>
        deps.jobs.run('enroll', {
          owner_id: caller.account_id,
          individual_id: randomUUID(),
          kind: input.kind,
          create: true,
          attrs: input.attrs,
          images: media.map((m) => ({ cid: m.cid, source: 'enroll', filename: m.filename })),
        }),
      );
    },
  };
}

export type IndividualsService = ReturnType<typeof createIndividualsService>;
