import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { scopeOfJob } from '../access/owner-scope.js';
import { surveysRepo as repo } from './surveys.repo.js';

describe.each(BOTH_DATABASES)('surveys on $name', ({ open }) => {
  const [owner, other, survey] = [randomUUID(), randomUUID(), randomUUID()];
  const [mine, theirs] = [scopeOfJob({ owner_id: owner }), scopeOfJob({ owner_id: other })];
  const opened = openDatabase(open, async (db) => {
    await db.query(`insert into accounts (id, username) values ($1, 'owner'), ($2, 'other')`, [owner, other]);
  });
  const base = { kind: 'animal', species: 'cattle', farm_id: 'trai', tree_id: null, zone: 'all', video_cid: 'v1' };

  it('stores a survey, reads it back for its owner only, and lists the newest first', async () => {
    await repo.insert(opened.db, mine, { ...base, id: survey, job_id: `survey-${survey}` });
    const older = randomUUID();
    await repo.insert(opened.db, mine, { ...base, id: older, job_id: 'j-old' });
    await opened.db.query(`update surveys set created_at = now() - interval '1 day' where id = $1`, [older]);
    expect(await repo.own(opened.db, survey, mine)).toMatchObject({ id: survey, status: 'running', stage: 'queued', frames_read: 0 });
    expect(await repo.own(opened.db, survey, theirs)).toBeNull();
    expect((await repo.newest(opened.db, mine, 10)).map((s) => s.id)).toEqual([survey, older]);
    expect(await repo.newest(opened.db, theirs, 10)).toEqual([]);
    await repo.remove(opened.db, older);
    expect(await repo.own(opened.db, older, mine)).toBeNull();
  });

  it('reads progress, the result for review, and a track’s crops for enrolment', async () => {
    expect(await repo.progress(opened.db, survey)).toEqual({
      status: 'running',
      stage: 'queued',
      frames_read: 0,
      frames_total: null,
      tracks: 0,
      identified: 0,
    });
    expect(await repo.ownResult(opened.db, survey, mine)).toEqual({ kind: 'animal', status: 'running', result: null });
    expect(await repo.ownResult(opened.db, survey, theirs)).toBeNull();
    await opened.db.query(
      `insert into survey_tracks (survey_id, track_no, verdict, enrol_cids, first_s, last_s) values ($1, 2, 'no_match', '{c3}', 1, 2), ($1, 1, 'uncertain', '{c1,c2}', 0, 1)`,
      [survey],
    );
    expect(await repo.trackForEnrol(opened.db, survey, mine, 1)).toMatchObject({
      species: 'cattle',
      farm_id: 'trai',
      frame_cids: ['c1', 'c2'],
    });
    expect(await repo.trackForEnrol(opened.db, survey, mine, 9)).toMatchObject({ frame_cids: null });
    expect(await repo.trackForEnrol(opened.db, survey, theirs, 1)).toBeNull();
    const tracks = await repo.tracks<{ track_no: number; reviewed: string | null }>(opened.db, survey);
    expect(tracks.map((t) => t.track_no)).toEqual([1, 2]);
  });

  it('records a review and a recomputed result', async () => {
    const cow = randomUUID();
    await repo.markReviewed(opened.db, survey, 2, 'corrected', cow);
    await repo.setResult(opened.db, survey, { count: 2 });
    const tracks = await repo.tracks<{ track_no: number; reviewed: string | null; reviewed_id: string | null }>(opened.db, survey);
    expect(tracks[1]).toMatchObject({ track_no: 2, reviewed: 'corrected', reviewed_id: cow });
    expect((await repo.ownResult(opened.db, survey, mine))?.result).toEqual({ count: 2 });
  });

  it('records a job’s progress, its tracks once each, and its end or failure', async () => {
    const id = randomUUID();
    await repo.insert(opened.db, mine, { ...base, id, job_id: 'j-2' });
    await repo.start(opened.db, id);
    await repo.readProgress(opened.db, id, { frames_read: 40, tracks: 2, frames_total: 120 });
    expect(await repo.progress(opened.db, id)).toMatchObject({ stage: 'reading', frames_read: 40, frames_total: 120, tracks: 2 });
    await repo.startIdentifying(opened.db, id, 120, 2);
    await repo.setIdentified(opened.db, id, 1);
    expect(await repo.progress(opened.db, id)).toMatchObject({ stage: 'identifying', frames_read: 120, identified: 1 });
    const track = {
      survey_id: id,
      track_no: 1,
      query_id: null,
      verdict: 'uncertain',
      individual_id: null,
      candidates: [{ individual_id: 'x', probability: 0.4 }],
      frame_cids: ['f1'],
      enrol_cids: ['f1'],
      first_s: 0,
      last_s: 3,
      boxes: [{ x: 1 }],
    };
    await repo.insertTrack(opened.db, track);
    await repo.insertTrack(opened.db, { ...track, verdict: 'match' });
    const tracks = await repo.tracks<{ verdict: string; candidates: unknown; boxes: unknown }>(opened.db, id);
    expect(tracks).toHaveLength(1);
    expect(tracks[0]).toMatchObject({ verdict: 'uncertain', candidates: track.candidates, boxes: track.boxes });
    await repo.finish(opened.db, id, { frames: 120, tracks: 1, result: { count: 1 }, count_id: null });
    expect(await repo.own(opened.db, id, mine)).toMatchObject({
      status: 'done',
      stage: 'done',
      identified: 1,
      tracks: 1,
      result: { count: 1 },
    });
    const failed = randomUUID();
    await repo.insert(opened.db, mine, { ...base, id: failed, job_id: 'j-3' });
    await repo.fail(opened.db, failed, { code: 'video_unreadable' });
    expect(await repo.own(opened.db, failed, mine)).toMatchObject({ status: 'failed', error: { code: 'video_unreadable' } });
  });
});
