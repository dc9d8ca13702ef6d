import { describe, expect, it, vi } from 'vitest';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { SurveyRow } from '../../../shared/src/repos/surveys.repo.js';
import { scopeOfCaller } from '../../../shared/src/access/owner-scope.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { Caller } from '../http/route.js';
import type { UploadedFile } from '../middleware/multipart.js';
import { createSurveyService, type SurveyDeps } from './survey.service.js';

const OWNER = '11111111-1111-4111-8111-111111111111';
const SURVEY = '22222222-2222-4222-8222-222222222222';
const caller = { account_id: OWNER } as Caller;
/** The caller's own records, as the service scopes the repositories' statements. */
const SCOPE = scopeOfCaller(caller);
const db = strictMock<Queryable>({}, 'db');
const video = [{ filename: 'clip.mp4' }] as unknown as UploadedFile[];
const notFound = () => Object.assign(new Error('not found'), { status: 404, code: 'not_found' });

/** The deps as strict mocks: every member a test does not give throws when called. */
function setup(over: { [K in keyof SurveyDeps]?: Partial<SurveyDeps[K]> } = {}) {
  const deps = {
    db,
    surveys: strictMock<SurveyDeps['surveys']>(over.surveys ?? {}, 'surveys'),
    population: strictMock<SurveyDeps['population']>(over.population ?? {}, 'population'),
    queue: strictMock<SurveyDeps['queue']>(over.queue ?? {}, 'queue'),
    media: strictMock<SurveyDeps['media']>(over.media ?? {}, 'media'),
    trees: strictMock<SurveyDeps['trees']>(over.trees ?? {}, 'trees'),
    verdicts: strictMock<SurveyDeps['verdicts']>(over.verdicts ?? {}, 'verdicts'),
    jobs: strictMock<SurveyDeps['jobs']>(over.jobs ?? {}, 'jobs'),
    pollMs: 50,
  } as SurveyDeps;
  return createSurveyService(deps);
}
/** media.withUploads as it behaves once the video is stored: the work runs on its content id. */
const stored = () =>
  vi.fn(async (_f: UploadedFile[], _c: string, _field: string, work: (m: { cid: string }[]) => Promise<unknown>) =>
    work([{ cid: 'bafyvideo' }]),
  );

const row = (over: Partial<SurveyRow> = {}): SurveyRow => ({
  id: SURVEY,
  kind: 'animal',
  species: 'cattle',
  farm_id: 'farm-1',
  tree_id: null,
  zone: 'all',
  video_cid: 'bafyvideo',
  job_id: `survey-${SURVEY}`,
  status: 'done',
  frames_read: 30,
  tracks: 2,
  stage: 'done',
  frames_total: 30,
  identified: 2,
  result: { count: 2, known: [], not_seen: [], tracks: [] },
  error: null,
  created_at: new Date('2026-11-28T08:00:00Z'),
  finished_at: new Date('2026-11-28T08:01:00Z'),
  ...over,
});

describe('survey service: sending a video', () => {
  it('asks an animal survey for its species before storing anything', async () => {
    const s = setup();
    await expect(s.create(caller, { files: video, kind: 'animal', species: '  ' })).rejects.toMatchObject({
      status: 422,
      code: 'survey_species_required',
    });
  });

  it("answers a farm that is not the caller's 404 and stores no video", async () => {
    const farmIsOwn = vi.fn(async () => false);
    const withUploads = vi.fn();
    const s = setup({ population: { farmIsOwn }, media: { withUploads } });
    await expect(s.create(caller, { files: video, kind: 'animal', species: 'cattle', farm_id: 'theirs' })).rejects.toMatchObject({
      status: 404,
    });
    expect(farmIsOwn).toHaveBeenCalledWith(db, SCOPE, 'theirs');
    expect(withUploads).not.toHaveBeenCalled();
  });

  it('checks the tree of a fruit survey through the trees service', async () => {
    const access = vi.fn(async () => Promise.reject(notFound()));
    const s = setup({ trees: { access } });
    await expect(s.create(caller, { files: video, kind: 'fruit', tree_id: 'tree-9' })).rejects.toMatchObject({ status: 404 });
    expect(access).toHaveBeenCalledWith(OWNER, 'tree-9', 'read');
  });

  it("writes the survey row as the caller's and queues one survey job named after it", async () => {
    const insert = vi.fn(async () => {});
    const enqueue = vi.fn(async () => 'job');
    const s = setup({
      population: { farmIsOwn: async () => true },
      media: { withUploads: stored() as never },
      surveys: { insert },
      queue: { enqueue: enqueue as never },
    });
    const out = await s.create(caller, { files: video, kind: 'animal', species: ' cattle ', farm_id: 'farm-1', fps: 4 });
    const id = out.survey_id;
    expect(out).toEqual({
      survey_id: id,
      job_id: `survey-${id}`,
      status: 'running',
      links: { self: `/api/survey/${id}`, events: `/api/survey/${id}/events`, job: `/api/jobs/survey-${id}` },
    });
    expect(insert).toHaveBeenCalledWith(db, SCOPE, {
      id,
      kind: 'animal',
      species: 'cattle',
      farm_id: 'farm-1',
      tree_id: null,
      zone: 'all',
      video_cid: 'bafyvideo',
      job_id: `survey-${id}`,
    });
    expect(enqueue).toHaveBeenCalledWith(
      'survey',
      { owner_id: OWNER, survey_id: id, video_cid: 'bafyvideo', kind: 'animal', zone: 'all', species: 'cattle', farm_id: 'farm-1', fps: 4 },
      { jobId: `survey-${id}` },
    );
  });

  it('removes the row again when the job cannot be queued, and says why', async () => {
    const remove = vi.fn(async () => {});
    const s = setup({
      media: { withUploads: stored() as never },
      surveys: { insert: async () => {}, remove },
      queue: { enqueue: async () => Promise.reject(new Error('queue down')) },
    });
    await expect(s.create(caller, { files: video, kind: 'fruit' })).rejects.toThrow('queue down');
    expect(remove).toHaveBeenCalledWith(db, expect.any(String));
  });
});

describe('survey service: reading', () => {
  it("answers another account's or a missing survey 404", async () => {
    const own = vi.fn(async () => null);
    const s = setup({ surveys: { own } });
    await expect(s.get(caller, SURVEY, 'en')).rejects.toMatchObject({ status: 404 });
    expect(own).toHaveBeenCalledWith(db, SURVEY, SCOPE);
  });

  it("says a failed survey's reason in the reader's language and shows no result", async () => {
    const failed = row({ status: 'failed', result: null, error: { code: 'survey_video_endless' } });
    const s = setup({ surveys: { own: async () => failed } });
    const en = await s.get(caller, SURVEY, 'en');
    expect(en).toMatchObject({ status: 'failed', stage: 'done', error: { code: 'survey_video_endless' } });
    expect(en.error!.message).toMatch(/\w+ \w+/);
    expect((await s.get(caller, SURVEY, 'vi')).error!.message).not.toBe(en.error!.message);
    expect(en).not.toHaveProperty('result');
  });

  it('lists the newest surveys with their count and without their results', async () => {
    const newest = vi.fn(async () => [row(), row({ status: 'running', stage: 'reading', result: null, finished_at: null })]);
    const s = setup({ surveys: { newest } });
    const list = await s.list(caller, 'vi');
    expect(newest).toHaveBeenCalledWith(db, SCOPE, 100);
    expect(list.map((x) => [x.status, x.stage, x.count])).toEqual([
      ['done', 'done', 2],
      ['running', 'reading', null],
    ]);
    for (const x of list) expect(x).not.toHaveProperty('result');
  });
});

describe("survey service: enrolling a stranger's track", () => {
  it('answers a missing survey 404, a fruit survey 422, an unknown track 404 and a track with no crops 422, running no job', async () => {
    const run = vi.fn();
    const cases: [Awaited<ReturnType<SurveyDeps['surveys']['trackForEnrol']>>, object][] = [
      [null, { status: 404 }],
      [
        { species: null, farm_id: null, kind: 'fruit', status: 'done', frame_cids: ['a'] },
        { status: 422, code: 'survey_review_fruit' },
      ],
      [
        { species: 'cattle', farm_id: null, kind: 'animal', status: 'done', frame_cids: null },
        { status: 404, code: 'survey_track_unknown' },
      ],
      [
        { species: 'cattle', farm_id: null, kind: 'animal', status: 'done', frame_cids: [] },
        { status: 422, code: 'no_animal_found' },
      ],
    ];
    for (const [found, error] of cases) {
      const s = setup({ surveys: { trackForEnrol: async () => found }, jobs: { run } });
      await expect(s.enrolTrack(caller, SURVEY, 3, undefined)).rejects.toMatchObject(error);
    }
    expect(run).not.toHaveBeenCalled();
  });

  it("enrols the track's crops as a new animal of the survey's species and farm, then reviews the track as it", async () => {
    const run = vi.fn(async () => ({ done: true }) as never);
    const record = vi.fn(async (_c: Caller, input: { correct_id?: string }) => ({ correct_id: input.correct_id ?? null }));
    const markReviewed = vi.fn(async () => {});
    const setResult = vi.fn(async () => {});
    const track = {
      track_no: 3,
      query_id: 'q3',
      verdict: 'no_match',
      individual_id: null,
      candidates: [],
      frame_cids: ['f1'],
      first_s: 0,
      last_s: 1,
    };
    const s = setup({
      surveys: {
        trackForEnrol: async () => ({ species: 'cattle', farm_id: 'farm-1', kind: 'animal', status: 'done', frame_cids: ['c1', 'c2'] }),
        ownResult: async () => ({ kind: 'animal', status: 'done', result: { known: [], not_seen: [], tracks: [{ track: 3 }] } }),
        tracks: (async () => [{ ...track, reviewed: null, reviewed_id: null }]) as never,
        markReviewed,
        setResult,
      },
      jobs: { run },
      verdicts: { record: record as never },
    });
    await s.enrolTrack(caller, SURVEY, 3, 'Mới');
    const [name, data] = run.mock.calls[0] as unknown as [string, { individual_id: string; images: { cid: string; source: string }[] }];
    expect(name).toBe('enroll');
    expect(data).toMatchObject({
      owner_id: OWNER,
      kind: 'animal',
      create: true,
      attrs: { species: 'cattle', farm_id: 'farm-1', name: 'Mới' },
    });
    expect(data.images.map((i) => [i.cid, i.source])).toEqual([
      ['c1', 'survey'],
      ['c2', 'survey'],
    ]);
    // The track becomes that animal: an "other" label on its query, and the counts recomputed.
    expect(record).toHaveBeenCalledWith(caller, { query_id: 'q3', kind: 'animal', verdict: 'other', correct_id: data.individual_id });
    expect(markReviewed).toHaveBeenCalledWith(db, SURVEY, 3, 'corrected', data.individual_id);
    expect((setResult.mock.calls[0] as unknown[])[2]).toMatchObject({
      count: 1,
      known: [{ individual_id: data.individual_id, tracks: [3] }],
      unknown: [],
    });
  });

  it('leaves the track unreviewed while the enrolment job is still running', async () => {
    const s = setup({
      surveys: { trackForEnrol: async () => ({ species: 'cattle', farm_id: null, kind: 'animal', status: 'done', frame_cids: ['c1'] }) },
      jobs: { run: (async () => ({ done: false, job_id: 'j' })) as never },
    });
    expect(await s.enrolTrack(caller, SURVEY, 1, undefined)).toMatchObject({ done: false });
  });
});
