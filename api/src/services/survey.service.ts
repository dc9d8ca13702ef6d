import type { PopulationRepo } from '../../../shared/src/repos/population.repo.js';
import type { SurveyRow, SurveyStage, SurveysRepo } from '../../../shared/src/repos/surveys.repo.js';
import { randomUUID } from 'node:crypto';
import { scopeOfCaller, type OwnerScope } from '../../../shared/src/access/owner-scope.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { JobQueue } from '../../../shared/src/ports/queue.port.js';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import { renderMessage, type Lang, type MessageCode } from '../../../shared/src/domain/messages.js';
import type { Caller } from '../http/route.js';
import type { UploadedFile } from '../middleware/multipart.js';
import type { MediaService } from './media.service.js';
import type { TreesService } from './trees.service.js';
import type { JobOutcome, JobsService } from './jobs.service.js';
import type { createVerdictService } from './verdict.service.js';

type VerdictService = ReturnType<typeof createVerdictService>;
import { createSurveyReview } from './survey-review.js';
import { createSharedPoll } from './shared-poll.js';

export interface SurveyInput {
  files: UploadedFile[];
  kind: 'animal' | 'fruit';
  species?: string | undefined;
  farm_id?: string | undefined;
  tree_id?: string | undefined;
  zone?: string | undefined;
  fps?: number | undefined;
}

export type { SurveyStage } from '../../../shared/src/repos/surveys.repo.js';

export interface SurveyProgress {
  status: SurveyRow['status'];
  stage: SurveyStage;
  frames_read: number;
  /** Frames the video should give (its declared length × frames read a second); null until known. */
  frames_total: number | null;
  tracks: number;
  /** Tracks identified so far (stage `identifying`). */
  identified: number;
}

const links = (id: string, jobId: string) => ({ self: `/api/survey/${id}`, events: `/api/survey/${id}/events`, job: `/api/jobs/${jobId}` });
/** Animals of a farm are counted as one herd unless the caller names a zone. */
export const DEFAULT_ZONE = 'all';

/**
 * Surveys from drone and phone video: the upload is stored, a `surveys` row written and one
 * `survey` job enqueued (workers/src/handlers/survey.handler.ts); progress and the result are read
 * back from the row, by polling or SSE, in both modes. Ownership comes from the token only.
 */
export interface SurveyDeps {
  db: Queryable;
  surveys: SurveysRepo;
  /** The farm check: a farm is the caller's once an animal was enrolled into it or its row bound. */
  population: Pick<PopulationRepo, 'farmIsOwn'>;
  queue: Pick<JobQueue, 'enqueue'>;
  media: Pick<MediaService, 'withUploads'>;
  trees: Pick<TreesService, 'access'>;
  verdicts: Pick<VerdictService, 'record'>;
  jobs: Pick<JobsService, 'run'>;
  /** How often the shared progress poll reads a running survey's row (BATCH_EVENTS_POLL_MS). */
  pollMs: number;
}

export function createSurveyService(deps: SurveyDeps) {
  const { db, surveys: surveysRepo, population: populationRepo } = deps;
  const review = createSurveyReview({ db, surveys: surveysRepo, record: (caller, input) => deps.verdicts.record(caller, input) });
  const progressPoll = createSharedPoll<SurveyProgress>({
    read: async (id) => (await surveysRepo.progress(db, id)) ?? undefined,
    key: (p) => `${p.status}/${p.stage}/${p.frames_read}/${p.frames_total}/${p.tracks}/${p.identified}`,
    final: (p) => p.status !== 'running',
    intervalMs: deps.pollMs,
  });

  async function owned(caller: Caller, id: string): Promise<SurveyRow> {
    const row = await surveysRepo.own(db, id, scopeOfCaller(caller));
    if (!row) throw ERRORS.notFound();
    return row;
  }

  /** A farm is the caller's once an individual was enrolled into it or its row was bound; anything else is the one 404. */
  async function assertFarm(scope: OwnerScope, farmId: string) {
    if (!(await populationRepo.farmIsOwn(db, scope, farmId))) throw ERRORS.notFound();
  }

  function view(r: SurveyRow, lang: Lang) {
    return {
      survey_id: r.id,
      status: r.status,
      kind: r.kind,
      species: r.species,
      farm_id: r.farm_id,
      tree_id: r.tree_id,
      zone: r.zone,
      video_cid: r.video_cid,
      stage: r.status === 'running' ? r.stage : 'done',
      frames_read: r.frames_read,
      frames_total: r.frames_total,
      tracks: r.tracks,
      identified: r.identified,
      created_at: r.created_at.toISOString(),
      ...(r.finished_at ? { finished_at: r.finished_at.toISOString() } : {}),
      ...(r.status === 'done' && r.result ? { result: r.result } : {}),
      ...(r.status === 'failed' && r.error
        ? {
            error: {
              code: r.error.code,
              message: renderMessage(r.error.code as MessageCode, lang, { field: 'file', ...(r.error.params ?? {}) }),
            },
          }
        : {}),
      links: links(r.id, r.job_id),
    };
  }

  return {
    async create(caller: Caller, input: SurveyInput) {
      if (input.kind === 'animal' && !input.species?.trim()) throw new AppError(422, 'survey_species_required', { field: 'species' });
      const scope = scopeOfCaller(caller);
      if (input.tree_id) await deps.trees.access(caller.account_id, input.tree_id, 'read');
      if (input.farm_id) await assertFarm(scope, input.farm_id);
      const id = randomUUID();
      const jobId = `survey-${id}`;
      const zone = input.zone ?? DEFAULT_ZONE;
      return deps.media.withUploads(
        input.files,
        'video',
        'file',
        async ([v]) => {
          await surveysRepo.insert(db, scope, {
            id,
            kind: input.kind,
            species: input.kind === 'animal' ? input.species!.trim() : null,
            farm_id: input.farm_id ?? null,
            tree_id: input.tree_id ?? null,
            zone,
            video_cid: v!.cid,
            job_id: jobId,
          });
          try {
            await deps.queue.enqueue(
              'survey',
              {
                owner_id: caller.account_id,
                survey_id: id,
                video_cid: v!.cid,
                kind: input.kind,
                zone,
                ...(input.kind === 'animal' ? { species: input.species!.trim() } : {}),
                ...(input.farm_id ? { farm_id: input.farm_id } : {}),
                ...(input.tree_id ? { tree_id: input.tree_id } : {}),
                ...(input.fps ? { fps: input.fps } : {}),
              },
              { jobId },
            );
          } catch (err) {
            await surveysRepo.remove(db, id);
            throw err;
          }
          return { survey_id: id, job_id: jobId, status: 'running' as const, links: links(id, jobId) };
        },
        caller.account_id,
      );
    },

    async get(caller: Caller, id: string, lang: Lang) {
      return view(await owned(caller, id), lang);
    },

    async list(caller: Caller, lang: Lang) {
      const rows = await surveysRepo.newest(db, scopeOfCaller(caller), 100);
      return rows.map((x) => {
        const { result: _r, ...rest } = view(x, lang);
        return { ...rest, count: (x.result?.count as number | undefined) ?? null };
      });
    },

    /** Confirm or correct one track: an identify_verdict label, and the counts recomputed. */
    review,

    /**
     * One tap "enrol as new": the track's crops become a new animal of the survey's species and
     * farm (the same `enroll` job as POST /api/animal/enroll), and the track is then reviewed as
     * that animal, so the counts and the label follow. Answers the job's outcome (202 while it runs).
     */
    async enrolTrack(caller: Caller, surveyId: string, trackNo: number, name: string | undefined): Promise<JobOutcome> {
      const row = await surveysRepo.trackForEnrol(db, surveyId, scopeOfCaller(caller), trackNo);
      if (!row) throw ERRORS.notFound();
      if (row.kind === 'fruit') throw new AppError(422, 'survey_review_fruit', { field: 'track' });
      if (!row.frame_cids) throw new AppError(404, 'survey_track_unknown', { field: 'track', track: trackNo });
      if (!row.frame_cids.length) throw new AppError(422, 'no_animal_found', { field: 'track', filename: `track ${trackNo}` });
      const id = randomUUID();
      const attrs = { species: row.species, ...(row.farm_id ? { farm_id: row.farm_id } : {}), ...(name ? { name } : {}) };
      const out = await deps.jobs.run('enroll', {
        owner_id: caller.account_id,
        individual_id: id,
        kind: 'animal',
        create: true,
        attrs,
        images: row.frame_cids.map((cid, i) => ({ cid, source: 'survey', filename: `survey-${surveyId}-track-${trackNo}-${i + 1}` })),
      });
      if (out.done) await review(caller, surveyId, trackNo, { action: 'correct', individual_id: id });
      return out;
    },

    /** Ownership up front, so the events route can answer 404 before it starts streaming. */
    owned: (caller: Caller, id: string) => owned(caller, id),

    /** Progress as it changes, polled from the row (any worker process may be reading the video); ends when the survey ends. */
    /** Progress of one survey, from the one poll its listeners share. */
    progress: (id: string, signal: AbortSignal): AsyncGenerator<SurveyProgress> => progressPoll.subscribe(id, signal),
  };
}

export type SurveyService = ReturnType<typeof createSurveyService>;
