/**
 * The owner's review of a survey's tracks: confirm a verdict or correct it. Each review is an
 * `identify_verdict` label on the track's stored query (the same labels photos get, so learning
 * and calibration use them), and the survey's counts are recomputed with the reviewed verdicts.
 * The population count the survey wrote stays as measured: a review is a label, not a recount.
 */
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';
import type { SurveysRepo } from '../../../shared/src/repos/surveys.repo.js';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { summarise, type DecidedTrack } from '../../../shared/src/domain/survey-summary.js';
import type { Caller } from '../http/route.js';
import type { VerdictLabel } from './verdict.service.js';

export interface ReviewInput {
  action: 'confirm' | 'correct';
  individual_id?: string | null | undefined;
}

interface TrackRow {
  track_no: number;
  query_id: string | null;
  verdict: DecidedTrack['verdict'];
  individual_id: string | null;
  candidates: DecidedTrack['candidates'];
  frame_cids: string[];
  first_s: number;
  last_s: number;
  reviewed: 'confirmed' | 'corrected' | null;
  reviewed_id: string | null;
}

/** Which label a review stands for (spec: correct, wrong, other, unknown_ok). */
export function labelFor(t: Pick<TrackRow, 'verdict' | 'individual_id'>, r: ReviewInput): { verdict: VerdictLabel; correct_id?: string } {
  if (r.action === 'confirm') {
    if (t.verdict === 'match') return { verdict: 'correct', correct_id: t.individual_id! };
    if (t.verdict === 'no_match') return { verdict: 'unknown_ok' };
    throw new AppError(422, 'survey_review_choose', { field: 'individual_id' });
  }
  const id = r.individual_id ?? null;
  if (t.verdict === 'match') {
    if (id === t.individual_id) return { verdict: 'correct', correct_id: id! };
    return id ? { verdict: 'wrong', correct_id: id } : { verdict: 'wrong' };
  }
  return id ? { verdict: 'other', correct_id: id } : { verdict: 'unknown_ok' };
}

/** The verdict a track counts with after review. */
function effective(t: TrackRow): DecidedTrack {
  const base = {
    track_no: t.track_no,
    candidates: t.candidates,
    frame_cids: t.frame_cids,
    first_s: t.first_s,
    last_s: t.last_s,
    label: '',
    name: null,
  };
  if (t.reviewed === 'corrected') return { ...base, verdict: t.reviewed_id ? 'match' : 'no_match', individual_id: t.reviewed_id };
  if (t.reviewed === 'confirmed') return { ...base, verdict: t.verdict, individual_id: t.individual_id };
  return { ...base, verdict: t.verdict, individual_id: t.individual_id };
}

export interface SurveyReviewDeps {
  db: Queryable;
  surveys: Pick<SurveysRepo, 'ownResult' | 'tracks' | 'markReviewed' | 'setResult'>;
  /** verdict.service's record: the review is an identify_verdict label on the track's query. */
  record: (
    caller: Caller,
    input: { query_id: string; verdict: VerdictLabel; correct_id?: string; kind?: 'animal' },
  ) => Promise<{ correct_id: string | null }>;
}

export function createSurveyReview(deps: SurveyReviewDeps) {
  const { db, surveys: surveysRepo } = deps;
  return async function review(caller: Caller, surveyId: string, trackNo: number, input: ReviewInput) {
    const survey = await surveysRepo.ownResult(db, surveyId, scopeOfCaller(caller));
    if (!survey) throw ERRORS.notFound();
    if (survey.status !== 'done' || !survey.result) throw new AppError(422, 'survey_not_done', { field: 'survey_id' });
    if (survey.kind === 'fruit') throw new AppError(422, 'survey_review_fruit', { field: 'track' });
    const rows = { rows: await surveysRepo.tracks<TrackRow>(db, surveyId) };
    const track = rows.rows.find((t) => t.track_no === trackNo);
    if (!track?.query_id) throw new AppError(404, 'survey_track_unknown', { field: 'track', track: trackNo });
    const label = labelFor(track, input);
    const stored = await deps.record(caller, {
      query_id: track.query_id,
      kind: 'animal',
      verdict: label.verdict,
      ...(label.correct_id ? { correct_id: label.correct_id } : {}),
    });
    // Only an individual of the caller's own counts as known; another id was dropped with the label.
    const reviewed = input.action === 'confirm' ? 'confirmed' : 'corrected';
    const reviewedId = input.action === 'confirm' ? track.individual_id : stored.correct_id;
    await surveysRepo.markReviewed(db, surveyId, trackNo, reviewed, reviewedId);
    track.reviewed = reviewed;
    track.reviewed_id = reviewedId;
    const prev = survey.result as {
      known: { individual_id: string; name: string | null }[];
      not_seen: { individual_id: string; name: string | null }[];
      maybe_seen?: { individual_id: string; name: string | null }[];
      not_named?: { individual_id: string; name: string | null }[];
      tracks: Record<string, unknown>[];
    };
    // The farm's animals as the survey listed them (surveys before maybe_seen and not_named have none).
    const enrolled = [...prev.known, ...(prev.maybe_seen ?? []), ...(prev.not_named ?? []), ...prev.not_seen].map((k) => ({
      id: k.individual_id,
      name: k.name,
    }));
    const names = new Map(enrolled.map((e) => [e.id, e.name]));
    const decided = rows.rows.map((t) => ({ ...effective(t), name: names.get(effective(t).individual_id ?? '') ?? null }));
    const summary = summarise('animal', decided, enrolled, null);
    const reviews = new Map(
      rows.rows.filter((t) => t.reviewed).map((t) => [t.track_no, { review: t.reviewed, individual_id: t.reviewed_id }]),
    );
    const result = {
      ...survey.result,
      ...summary,
      tracks: prev.tracks.map((t) => ({ ...t, ...(reviews.has(t.track as number) ? { review: reviews.get(t.track as number) } : {}) })),
    };
    await surveysRepo.setResult(db, surveyId, result);
    return { survey_id: surveyId, track: trackNo, label: label.verdict, count: summary.count, result };
  };
}
