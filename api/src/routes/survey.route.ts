import { z } from 'zod';
import type { Services } from '../services/index.js';
import { defineRoute, reply, type RouteDef } from '../http/route.js';
import { eventStream, sseFrame } from '../http/event-stream.js';
import { accepted, answerJob } from './jobs.route.js';
import { videoErrors } from './recognition.schemas.js';
import { Ok, errorResponse } from './schemas.js';
import { TreeRef, withTreeId } from './tree-ref.js';

const SurveyParam = z.object({ survey_id: z.string().uuid() });
const Links = z.object({
  self: z.string(),
  events: z.string().describe('server-sent events'),
  job: z.string().describe('the job, as every job-backed route reports it'),
});
const Candidate = z.object({ individual_id: z.string(), name: z.string().nullable(), probability: z.number() });
const Track = z.object({
  track: z.number().int(),
  verdict: z.enum(['match', 'uncertain', 'no_match', 'counted']).describe('`counted`: a fruit track (fruit are counted, not identified)'),
  individual_id: z.string().nullable(),
  name: z.string().nullable(),
  candidates: z.array(Candidate),
  frames: z.array(z.string()).describe('CIDs of the crops identified as one several-photo query (thumbnails; GET /api/blob/{cid})'),
  first_s: z.number(),
  last_s: z.number(),
  label: z.string().describe("the detector's COCO label"),
});
const Result = z
  .object({
    count: z
      .number()
      .int()
      .describe(
        'unique individuals seen: known ones (two tracks of one animal count once), plus each uncertain and each unknown track; for fruit, unique fruit tracks',
      ),
    known: z.array(z.object({ individual_id: z.string(), name: z.string().nullable(), tracks: z.array(z.number().int()) })),
    uncertain: z.array(z.object({ track: z.number().int(), candidates: z.array(Candidate) })),
    unknown: z.array(z.object({ track: z.number().int() })).describe('tracks of animals not enrolled: strangers'),
    not_seen: z
      .array(z.object({ individual_id: z.string(), name: z.string().nullable() }))
      .describe(
        "the farm's enrolled animals of the species that no track matched and no uncertain track lists as a candidate: the animals the survey could have seen and did not. Said only when no track is `unknown` (an unrecognised head may be any of them: see `not_named`); empty for a survey without a farm",
      ),
    maybe_seen: z
      .array(z.object({ individual_id: z.string(), name: z.string().nullable() }))
      .optional()
      .describe("the farm's enrolled animals that an uncertain track lists as a candidate: perhaps seen, so neither known nor not seen"),
    not_named: z
      .array(z.object({ individual_id: z.string(), name: z.string().nullable() }))
      .optional()
      .describe(
        "the farm's enrolled animals that no track names or offers while some tracks are `unknown`: up to `unknown.length` of them may have been on the video unrecognised, so the survey cannot say they were not seen",
      ),
    fruit_per_tree: z.array(z.object({ tree_id: z.string().nullable(), count: z.number().int() })).optional(),
    frames_read: z.number().int(),
    seconds: z.number(),
    frames_per_second: z.number(),
    population: z
      .object({ count_id: z.string(), enrolled: z.number().int(), alerts: z.array(z.object({ alert_id: z.string(), rule: z.string() })) })
      .nullable()
      .describe('the population count this survey wrote for the farm (animal surveys with a farm_id), and the alerts it raised'),
    tracks: z.array(Track),
  })
  .passthrough();
const SurveyOut = Ok.extend({
  survey_id: z.string(),
  status: z.enum(['running', 'done', 'failed']),
  kind: z.string(),
  species: z.string().nullable(),
  farm_id: z.string().nullable(),
  tree_id: z.string().nullable(),
  zone: z.string(),
  video_cid: z.string(),
  stage: z
    .enum(['queued', 'reading', 'identifying', 'done'])
    .describe('while `running`: waiting for a worker, reading frames, or identifying the tracks found; `done` once the survey ended'),
  frames_read: z.number().int().describe('frames read so far'),
  frames_total: z
    .number()
    .int()
    .nullable()
    .describe('frames the video should give (its declared length × fps); null until read, or when the video declares no length'),
  tracks: z.number().int().describe('confirmed tracks so far'),
  identified: z.number().int().describe('tracks identified so far (stage `identifying`)'),
  created_at: z.string(),
  finished_at: z.string().optional(),
  result: Result.optional().describe('present once `status` is `done`'),
  error: z
    .object({ code: z.string(), message: z.string() })
    .optional()
    .describe('present once `status` is `failed`: why the video could not be surveyed; nothing was counted'),
  links: Links,
});
const notYours = { 401: errorResponse('not signed in'), 404: errorResponse("no such survey, or another account's (the same answer)") };

/** Video surveys: count and identify a herd from a drone pass, or count the fruit on a tree from a phone walk. */
export function surveyRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/survey',
      tag: 'survey',
      access: 'user',
      feature: 'survey',
      summary: 'Survey a drone or phone video: detect, track, identify and count the animals, or count the fruit on a tree',
      description:
        'multipart/form-data: `file` (one video, limits as `/api/identify/video`), `kind` (`animal` with `species`, or `fruit`), optional `farm_id` (yours), ' +
        '`tree_id` (fruit: the tree filmed), `zone` (population zone, default `all`: the whole farm as one herd) and `fps` (frames read per second, default 10). ' +
        'Answers 202 at once. Frames are streamed through ffmpeg, animals (COCO cow, sheep, horse, dog, …) or fruit (apple, orange, banana) found by YOLOX-nano, ' +
        "followed by a ByteTrack-style tracker with camera-motion compensation, and each animal track's best crops identified against your gallery as one " +
        'several-photo query (verdict `match`, `uncertain` with candidates, or `no_match`: not enrolled). An animal survey with a farm writes a population count ' +
        "(method `survey`), so the population alerts fire, and adds an event to the farm's and each identified animal's timeline. " +
        'A damaged, empty or endless video fails the survey with its reason (`status: failed`) and counts nothing.',
      bodyType: 'multipart',
      body: z.object({
        kind: z.enum(['animal', 'fruit']),
        species: z
          .string()
          .trim()
          .min(1)
          .max(100)
          .optional()
          .describe('required for `animal`: the species surveyed; the gallery is narrowed to it'),
        farm_id: z.string().trim().min(1).max(100).optional(),
        tree_id: TreeRef.optional(),
        zone: z.string().trim().min(1).max(100).optional(),
        fps: z.coerce.number().min(1).max(30).optional(),
      }),
      upload: { field: 'file', maxFiles: 1, kind: 'video' },
      responses: {
        202: {
          description: 'accepted; follow `links`',
          schema: Ok.extend({ survey_id: z.string(), job_id: z.string(), status: z.literal('running'), links: Links }),
        },
        ...videoErrors,
        403: errorResponse("tree_id is another account's tree shared with you without read access"),
        404: errorResponse('farm_id or tree_id names nothing of yours'),
      },
      handler: async ({ body, files, caller }) =>
        reply(202, { ok: true, ...(await s.survey.create(caller!, { files, ...(await withTreeId(s, body)) })) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/surveys',
      tag: 'survey',
      access: 'user',
      feature: 'survey',
      summary: 'Your surveys, newest first (at most 100)',
      responses: {
        200: {
          description: 'the surveys',
          schema: Ok.extend({
            surveys: z.array(SurveyOut.omit({ ok: true, result: true }).extend({ count: z.number().int().nullable() })),
          }),
        },
        401: errorResponse('not signed in'),
      },
      handler: async ({ caller, lang }) => ({ ok: true, surveys: await s.survey.list(caller!, lang) }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/survey/{survey_id}',
      tag: 'survey',
      access: 'user',
      feature: 'survey',
      summary: 'A survey: progress while it runs, the result when done, the reason when it failed',
      params: SurveyParam,
      responses: { 200: { description: 'the survey', schema: SurveyOut }, ...notYours },
      handler: async ({ params, caller, lang }) => ({ ok: true, ...(await s.survey.get(caller!, params.survey_id, lang)) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/survey/{survey_id}/tracks/{track}/review',
      tag: 'survey',
      access: 'user',
      feature: 'survey',
      summary: 'Confirm or correct one track of an animal survey; the counts update',
      description:
        'JSON `{"action":"confirm"}` accepts the track\'s verdict (a `match` or a `no_match`; an `uncertain` track needs a choice). ' +
        '`{"action":"correct","individual_id":"…"}` names the right individual (one of yours), `{"action":"correct","individual_id":null}` says it is a stranger. ' +
        "Each review is an `identify_verdict` label on the track's stored query (correct, wrong, other or unknown_ok, as `POST /api/animal/identify_verdict`); " +
        "an individual_id that is not yours is dropped from the label, as there. The survey's `count`, `known`, `uncertain`, `unknown` and `not_seen` are recomputed; " +
        'the population count it wrote stays as measured.',
      params: SurveyParam.extend({ track: z.coerce.number().int().min(1) }),
      body: z.object({ action: z.enum(['confirm', 'correct']), individual_id: z.string().uuid().nullable().optional() }),
      responses: {
        200: {
          description: 'the label and the updated result',
          schema: Ok.extend({
            survey_id: z.string(),
            track: z.number().int(),
            label: z.enum(['correct', 'wrong', 'other', 'unknown_ok']),
            count: z.number().int(),
            result: Result,
          }),
        },
        ...notYours,
        422: errorResponse('the survey is not done, is a fruit survey, or the track is uncertain and no individual was chosen'),
      },
      handler: async ({ params, body, caller }) => ({
        ok: true,
        ...(await s.survey.review(caller!, params.survey_id, params.track, body)),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/survey/{survey_id}/tracks/{track}/enrol',
      tag: 'survey',
      access: 'user',
      feature: 'survey',
      summary: "Enrol a track's animal as a new individual, from the track's frames (one tap)",
      description:
        'JSON `{"name":"…"}` (optional). The track\'s crops are enrolled as a new animal of the survey\'s species and farm, by the same job as ' +
        "`POST /api/animal/enroll`; once it is done the track is reviewed as that animal (label `other`), so the survey's counts follow.",
      params: SurveyParam.extend({ track: z.coerce.number().int().min(1) }),
      body: z.object({ name: z.string().trim().min(1).max(100).optional() }),
      responses: {
        200: { description: 'the new individual, as animal enrolment answers', schema: Ok.passthrough() },
        202: accepted,
        ...notYours,
        422: errorResponse('a fruit survey, or crops the enrolment refuses (no animal found, unusable)'),
      },
      handler: async ({ params, body, caller }) =>
        answerJob(await s.survey.enrolTrack(caller!, params.survey_id, params.track, body.name), (r) => ({ ok: true, ...r })),
    }),
    defineRoute({
      method: 'get',
      path: '/api/survey/{survey_id}/events',
      tag: 'survey',
      access: 'user',
      feature: 'survey',
      summary: 'Survey progress as server-sent events',
      description:
        '`text/event-stream`: `event: progress` with data `{"status":"running","stage":"reading","frames_read":n,"frames_total":N,"tracks":t,"identified":i}` at start and at each change ' +
        '(the worker reports the frames read at most every half second, then each track identified), then `event: done` ' +
        '(or `event: failed`) with the same data, then the stream closes. Token as `Authorization: Bearer` or the session cookie. ' +
        'At most SSE_MAX_PER_SURVEY streams per survey and SSE_MAX_PER_ACCOUNT per account (batch streams included) are open at once; past either, 429 with Retry-After.',
      params: SurveyParam,
      responses: {
        200: { description: 'the event stream', contentType: 'text/event-stream' },
        ...notYours,
        429: errorResponse('too many progress streams open for this survey or account (stream_limit_survey, stream_limit_account)'),
      },
      handler: async ({ params, caller }, ctx) => {
        await s.survey.owned(caller!, params.survey_id);
        // Checked after ownership, so another account's survey stays the plain 404.
        const release = s.streamSlots.acquire(caller!.account_id, params.survey_id, 'survey');
        return eventStream(ctx, release, async function* (signal) {
          for await (const p of s.survey.progress(params.survey_id, signal)) {
            yield sseFrame('progress', p);
            if (p.status !== 'running') yield sseFrame(p.status, p);
          }
        });
      },
    }),
  ];
}
