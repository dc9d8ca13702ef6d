import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { activityEventsRepo } from '../../../shared/src/repos/activity-events.repo.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import type { Caller } from '../http/route.js';
import type { UploadedFile } from '../middleware/multipart.js';
import type { JobOutcome, JobsService } from './jobs.service.js';
import type { MediaService } from './media.service.js';
import { createEnrolChecks } from './enrol-checks.js';
import type { individualAccess } from '../../../shared/src/access/standing.js';

export interface EnrollInput {
  kind: Kind;
  attrs: Record<string, unknown>;
  files: UploadedFile[];
  /** Photos of an earlier identify query kept with the new individual ("none of these: enrol as new"). */
  queryCids?: string[];
}

export interface IdentifyInput {
  kind: Kind;
  files: UploadedFile[];
  filters: { farm_id?: string; tree_id?: string; species?: string };
  channels?: ('body' | 'face' | 'bio')[];
}

/** The ports enrolment and identification use. */
export interface IndividualsDeps {
  db: Queryable;
  /** The access policy's answer for an individual (shared/src/access/standing.ts). */
  access: typeof individualAccess;
  activity: Pick<typeof activityEventsRepo, 'record'>;
  media: Pick<MediaService, 'withUploads'>;
  jobs: Pick<JobsService, 'run'>;
  /** The species catalogue's file and the largest photo accepted (the enrolment checks). */
  speciesCatalogPath: string;
  imageMaxPixels: number;
}

/** Enrolment and identification: media into the store, a job for the worker, the job's answer back. */
export function createIndividualsService(deps: IndividualsDeps) {
  const { media, jobs } = deps;
  const checks = createEnrolChecks(deps.speciesCatalogPath, deps.imageMaxPixels);

  /** The individual when the caller owns it; otherwise the same 404 as a missing one. */
  async function owned(caller: Caller, id: string, kind: Kind) {
    const { decision, individual } = await deps.access(deps.db, caller.account_id, id, kind, 'owner');
    if (decision !== 'allow') throw ERRORS.notFound();
    return { id: individual!.id, farm_id: individual!.farm_id };
  }

  return {
    owned,

    async enroll(caller: Caller, input: EnrollInput): Promise<JobOutcome> {
      const { accept_warnings: accept, ...rest } = input.attrs;
      const { attrs, refused } = await checks.check(input.kind, rest, input.files, input.queryCids?.length ?? 0);
      return media.withUploads(input.files, 'image', 'files', (m) =>
        jobs.run('enroll', {
          owner_id: caller.account_id,
          individual_id: randomUUID(),
          kind: input.kind,
          create: true,
          attrs,
          // Query photos go last, so the refusals' indexes still point at the uploaded files.
          images: [
            ...m.map((x) => ({ cid: x.cid, source: 'enroll', filename: x.filename })),
            ...(input.queryCids ?? []).map((cid, i) => ({ cid, source: 'enroll', filename: `query-${i + 1}` })),
          ],
          ...(refused.length ? { refused } : {}),
          ...(accept === true ? { accept_warnings: true } : {}),
        }),
      );
    },

    /** Add photos to an individual the caller owns (second enrolment, confirmed new angle). */
    async addViews(
      caller: Caller,
      kind: Kind,
      id: string,
      files: UploadedFile[],
      source: string,
      opts: { acceptWarnings?: boolean } = {},
    ): Promise<JobOutcome> {
      await owned(caller, id, kind);
      return media.withUploads(files, 'image', 'files', (m) =>
        jobs.run('enroll', {
          owner_id: caller.account_id,
          individual_id: id,
          kind,
          create: false,
          attrs: {},
          images: m.map((x) => ({ cid: x.cid, source, filename: x.filename })),
          ...(opts.acceptWarnings ? { accept_warnings: true } : {}),
        }),
      );
    },

    /** Add the stored photos of an identify query to an individual the caller owns (a confirmed identification). */
    async addQueryPhotos(caller: Caller, kind: Kind, id: string, cids: string[], queryId: string): Promise<JobOutcome> {
      await owned(caller, id, kind);
      return jobs.run('enroll', {
        owner_id: caller.account_id,
        individual_id: id,
        kind,
        create: false,
        attrs: { query_id: queryId },
        images: cids.map((cid, i) => ({ cid, source: 'confirm', filename: `query-${i + 1}` })),
        // The owner has looked at the photo and said who it is: quality warnings do not stop it.
        accept_warnings: true,
      });
    },

    identify(caller: Caller, input: IdentifyInput): Promise<JobOutcome> {
      return media.withUploads(input.files, 'image', 'files', (m) =>
        jobs.run('identify', {
          owner_id: caller.account_id,
          query_id: randomUUID(),
          kind: input.kind,
          images: m.map((x) => x.cid),
          filters: input.filters,
          ...(input.channels ? { channels: input.channels } : {}),
        }),
      );
    },

    /** Try every kind the caller has enrolled; only a match picks the lane (workers/src/handlers/auto.handler.ts). */
    identifyAuto(caller: Caller, files: UploadedFile[], near?: { lat: number; lon: number }): Promise<JobOutcome> {
      return media.withUploads(files, 'image', 'files', (m) =>
        jobs.run('identify_auto', {
          owner_id: caller.account_id,
          query_id: randomUUID(),
          images: m.map((x) => x.cid),
          ...(near ? { near } : {}),
        }),
      );
    },

    identifyVideo(
      caller: Caller,
      kind: Kind,
      files: UploadedFile[],
      filters: Record<string, string>,
      maxFrames: number,
    ): Promise<JobOutcome> {
      return media.withUploads(
        files,
        'video',
        'file',
        ([v]) =>
          jobs.run('video', {
            owner_id: caller.account_id,
            video_cid: v!.cid,
            kind,
            purpose: 'identify',
            query_id: randomUUID(),
            max_frames: maxFrames,
            filters,
          }),
        caller.account_id,
      );
    },

    async addVideoViews(caller: Caller, kind: Kind, id: string, files: UploadedFile[], maxFrames: number): Promise<JobOutcome> {
      await owned(caller, id, kind);
      return media.withUploads(
        files,
        'video',
        'file',
        ([v]) =>
          jobs.run('video', {
            owner_id: caller.account_id,
            video_cid: v!.cid,
            kind,
            purpose: 'add_views',
            individual_id: id,
            max_frames: maxFrames,
          }),
        caller.account_id,
      );
    },

    /** Store a video against a tree and return its content address; nothing else is derived from it. */
    async storeVideo(caller: Caller, treeId: string, files: UploadedFile[]) {
      await owned(caller, treeId, 'tree');
      return media.withUploads(
        files,
        'video',
        'file',
        async ([v]) => {
          await deps.activity.record(deps.db, caller.account_id, 'tree.fruit_video', { tree_id: treeId, cid: v!.cid, size: v!.size });
          return { cid: v!.cid, size: v!.size, content_type: v!.contentType };
        },
        caller.account_id,
      );
    },
  };
}

export type IndividualsService = ReturnType<typeof createIndividualsService>;
