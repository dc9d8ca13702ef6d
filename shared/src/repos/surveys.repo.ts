/**
 * Statements on `surveys` (one video surveyed: its progress and result) and `survey_tracks` (each
 * track's answer), as the survey routes read and write them. A survey is its account's own only
 * (shared/src/access/policy.ts): each statement that picks surveys by their owner takes the
 * caller's `OwnerScope`, and another account's survey reads as missing.
 */
import type { OwnerScope } from '../access/owner-scope.js';
import type { Queryable } from '../ports/database.port.js';

/** Where a running survey is: waiting for a worker, reading frames, identifying tracks; `done` once it ended. */
export type SurveyStage = 'queued' | 'reading' | 'identifying' | 'done';

export interface SurveyRow {
  id: string;
  kind: string;
  species: string | null;
  farm_id: string | null;
  tree_id: string | null;
  zone: string;
  video_cid: string;
  job_id: string;
  status: 'running' | 'done' | 'failed';
  frames_read: number;
  tracks: number;
  stage: SurveyStage;
  frames_total: number | null;
  identified: number;
  result: Record<string, unknown> | null;
  error: { code: string; params?: Record<string, unknown> } | null;
  created_at: Date;
  finished_at: Date | null;
}

export type SurveyProgressRow = Pick<SurveyRow, 'status' | 'stage' | 'frames_read' | 'frames_total' | 'tracks' | 'identified'>;

/** A survey as it is written: the row's identity and what was asked, before any progress. */
export type NewSurvey = Pick<SurveyRow, 'id' | 'kind' | 'species' | 'farm_id' | 'tree_id' | 'zone' | 'video_cid' | 'job_id'>;

export const surveysRepo = {
  /** A new survey of the scope's account. */
  async insert(db: Queryable, scope: OwnerScope, s: NewSurvey): Promise<void> {
    await db.query(
      `insert into surveys (id, owner_id, kind, species, farm_id, tree_id, zone, video_cid, job_id) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [s.id, scope.ownerId, s.kind, s.species, s.farm_id, s.tree_id, s.zone, s.video_cid, s.job_id],
    );
  },

  /** Removes a survey whose job could not be queued. */
  async remove(db: Queryable, id: string): Promise<void> {
    await db.query('delete from surveys where id = $1', [id]);
  },

  /** The owner's survey (null: missing, or another account's). */
  async own(db: Queryable, id: string, scope: OwnerScope): Promise<SurveyRow | null> {
    return (await db.query<SurveyRow>('select * from surveys where id = $1 and owner_id = $2', [id, scope.ownerId])).rows[0] ?? null;
  },

  /** The owner's newest surveys, at most `limit`. */
  async newest(db: Queryable, scope: OwnerScope, limit: number): Promise<SurveyRow[]> {
    return (
      await db.query<SurveyRow>('select * from surveys where owner_id = $1 order by created_at desc limit $2', [scope.ownerId, limit])
    ).rows;
  },

  /** A survey's progress (the progress stream polls it; the caller's ownership was checked before). */
  async progress(db: Queryable, id: string): Promise<SurveyProgressRow | null> {
    const r = await db.query<SurveyProgressRow>(
      'select status, stage, frames_read, frames_total, tracks, identified from surveys where id = $1',
      [id],
    );
    return r.rows[0] ?? null;
  },

  /** The owner's survey with one track's crops kept for enrolment (null frame_cids: no such track). */
  async trackForEnrol(
    db: Queryable,
    id: string,
    scope: OwnerScope,
    trackNo: number,
  ): Promise<{ species: string | null; farm_id: string | null; kind: string; status: string; frame_cids: string[] | null } | null> {
    const r = await db.query<{ species: string | null; farm_id: string | null; kind: string; status: string; frame_cids: string[] | null }>(
      `select s.species, s.farm_id, s.kind, s.status, t.enrol_cids as frame_cids from surveys s left join survey_tracks t on t.survey_id = s.id and t.track_no = $3
        where s.id = $1 and s.owner_id = $2`,
      [id, scope.ownerId, trackNo],
    );
    return r.rows[0] ?? null;
  },

  /** The owner's survey's kind, status and result (null: missing, or another account's). */
  async ownResult(
    db: Queryable,
    id: string,
    scope: OwnerScope,
  ): Promise<{ kind: string; status: string; result: Record<string, unknown> | null } | null> {
    const r = await db.query<{ kind: string; status: string; result: Record<string, unknown> | null }>(
      'select kind, status, result from surveys where id = $1 and owner_id = $2',
      [id, scope.ownerId],
    );
    return r.rows[0] ?? null;
  },

  /** Every track of a survey, in track order (the caller's ownership of the survey was checked before). */
  async tracks<T>(db: Queryable, surveyId: string): Promise<T[]> {
    return (await db.query<T & object>('select * from survey_tracks where survey_id = $1 order by track_no', [surveyId])).rows;
  },

  /** Records the owner's review of one track. */
  async markReviewed(db: Queryable, surveyId: string, trackNo: number, reviewed: 'confirmed' | 'corrected', reviewedId: string | null) {
    await db.query('update survey_tracks set reviewed = $3, reviewed_id = $4 where survey_id = $1 and track_no = $2', [
      surveyId,
      trackNo,
      reviewed,
      reviewedId,
    ]);
  },

  /** Replaces a survey's result (the counts recomputed after a review). */
  async setResult(db: Queryable, surveyId: string, result: Record<string, unknown>): Promise<void> {
    await db.query('update surveys set result = $2 where id = $1', [surveyId, result]);
  },

  // The survey job's writes: its progress as it reads and identifies, its tracks and its end.

  /** A (re)started job: progress back to the beginning. */
  async start(db: Queryable, id: string): Promise<void> {
    await db.query(
      `update surveys set status = 'running', stage = 'reading', frames_read = 0, frames_total = null, tracks = 0, identified = 0, error = null where id = $1`,
      [id],
    );
  },

  async readProgress(db: Queryable, id: string, p: { frames_read: number; tracks: number; frames_total: number | null }): Promise<void> {
    await db.query('update surveys set frames_read = $2, tracks = $3, frames_total = $4 where id = $1', [
      id,
      p.frames_read,
      p.tracks,
      p.frames_total,
    ]);
  },

  /** Every frame read: the survey now identifies its tracks. */
  async startIdentifying(db: Queryable, id: string, frames: number, tracks: number): Promise<void> {
    await db.query(`update surveys set stage = 'identifying', frames_read = $2, tracks = $3, identified = 0 where id = $1`, [
      id,
      frames,
      tracks,
    ]);
  },

  async setIdentified(db: Queryable, id: string, identified: number): Promise<void> {
    await db.query('update surveys set identified = $2 where id = $1', [id, identified]);
  },

  /** A video that cannot be surveyed: failed, with the error the caller is shown. */
  async fail(db: Queryable, id: string, error: { code: string; params?: Record<string, unknown> }): Promise<void> {
    await db.query(`update surveys set status = 'failed', tracks = 0, error = $2, finished_at = now() where id = $1`, [id, error]);
  },

  /** Stores one decided track; a retried job's second insert of it changes nothing. */
  async insertTrack(db: Queryable, t: NewSurveyTrack): Promise<void> {
    await db.query(
      `insert into survey_tracks (survey_id, track_no, query_id, verdict, individual_id, candidates, frame_cids, enrol_cids, first_s, last_s, boxes)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) on conflict (survey_id, track_no) do nothing`,
      [
        t.survey_id,
        t.track_no,
        t.query_id,
        t.verdict,
        t.individual_id,
        JSON.stringify(t.candidates),
        t.frame_cids,
        t.enrol_cids,
        t.first_s,
        t.last_s,
        JSON.stringify(t.boxes),
      ],
    );
  },

  /** The survey's end: its result, the counts and the population count it wrote. */
  async finish(db: Queryable, id: string, f: { frames: number; tracks: number; result: object; count_id: string | null }): Promise<void> {
    await db.query(
      `update surveys set status = 'done', stage = 'done', identified = $3, frames_read = $2, tracks = $3, result = $4, count_id = $5, finished_at = now() where id = $1`,
      [id, f.frames, f.tracks, f.result, f.count_id],
    );
  },
};

export interface NewSurveyTrack {
  survey_id: string;
  track_no: number;
  query_id: string | null;
  verdict: string;
  individual_id: string | null;
  candidates: unknown[];
  frame_cids: string[];
  enrol_cids: string[];
  first_s: number;
  last_s: number;
  /** A sample of the track's boxes, for drawing it over the video. */
  boxes: unknown[];
}

export type SurveysRepo = typeof surveysRepo;
