import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { surveysRepo as repo } from './surveys.repo.js';

describe.each(BOTH_DATABASES)('surveys on $name', ({ open }) => {
  const [owner, other, survey] = [randomUUID(), randomUUID(), randomUUID()];
  const opened = openDatabase(open, async (db) => {
    await db.query(`insert into accounts (id, username) values ($1, 'owner'), ($2, 'other')`, [owner, other]);
  });
  const base = { owner_id: owner, kind: 'animal', species: 'cattle', farm_id: 'trai', tree_id: null, zone: 'all', video_cid: 'v1' };

  it('stores a survey, reads it back for its owner only, and lists the newest first', async () => {
    await repo.insert(opened.db, { ...base, id: survey, job_id: `survey-${survey}` });
    const older = randomUUID();
    await repo.insert(opened.db, { ...base, id: older, job_id: 'j-old' });
    await opened.db.query(`update surveys set created_at = now() - interval '1 day' where id = $1`, [older]);
    expect(await repo.own(opened.db, survey, owner)).toMatchObject({ id: survey, status: 'running', stage: 'queued', frames_read: 0 });
    expect(await repo.own(opened.db, survey, other)).toBeNull();
    expect((await repo.newest(opened.db, owner, 10)).map((s) => s.id)).toEqual([survey, older]);
    expect(await repo.newest(opened.db, other, 10)).toEqual([]);
    await repo.remove(opened.db, older);
    expect(await repo.own(opened.db, older, owner)).toBeNull();
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
    expect(await repo.ownResult(opened.db, survey, owner)).toEqual({ kind: 'animal', status: 'running', result: null });
    expect(await repo.ownResult(opened.db, survey, other)).toBeNull();
    await opened.db.query(
      `insert into survey_tracks (survey_id, track_no, verdict, enrol_cids, first_s, last_s) values ($1, 2, 'no_match', '{c3}', 1, 2), ($1, 1, 'uncertain', '{c1,c2}', 0, 1)`,
      [survey],
    );
    expect(await repo.trackForEnrol(opened.db, survey, owner, 1)).toMatchObject({
      species: 'cattle',
      farm_id: 'trai',
      frame_cids: ['c1', 'c2'],
    });
    expect(await repo.trackForEnrol(opened.db, survey, owner, 9)).toMatchObject({ frame_cids: null });
    expect(await repo.trackForEnrol(opened.db, survey, other, 1)).toBeNull();
    const tracks = await repo.tracks<{ track_no: number; reviewed: string | null }>(opened.db, survey);
    expect(tracks.map((t) => t.track_no)).toEqual([1, 2]);
  });

  it('records a review and a recomputed result', async () => {
    const cow = randomUUID();
    await repo.markReviewed(opened.db, survey, 2, 'corrected', cow);
    await repo.setResult(opened.db, survey, { count: 2 });
    const tracks = await repo.tracks<{ track_no: number; reviewed: string | null; reviewed_id: string | null }>(opened.db, survey);
    expect(tracks[1]).toMatchObject({ track_no: 2, reviewed: 'corrected', reviewed_id: cow });
    expect((await repo.ownResult(opened.db, survey, owner))?.result).toEqual({ count: 2 });
  });
});
