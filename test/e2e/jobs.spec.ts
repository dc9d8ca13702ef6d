import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type Mode, type TestApp } from '../support/app.js';
import { textureImage } from '../support/images.js';
import { until } from '../support/process.js';
import { counts, enroll, photos } from './jobs.helpers.js';

describe.each<Mode>(['embedded', 'distributed'])('jobs end to end (%s)', (mode) => {
  let app: TestApp;
  let slow: TestApp;
  let token: string;
  beforeAll(async () => {
    // The deterministic engine: these stories are about the queue (the killed-process ones below
    // keep the real engine, whose jobs last long enough to be caught active).
    app = await startTestApp({ mode, engine: 'deterministic' });
    // JOB_WAIT_MS=0: every job-backed route answers 202 at once and the client polls.
    slow = await startTestApp({ mode, engine: 'deterministic', env: { JOB_WAIT_MS: '0' } });
    token = (await signup(app.url)).token;
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
    await slow?.stop();
  });

  it('enrols through a real job and writes each row once', async () => {
    const r = await enroll(app.url, token, await photos(1, 3));
    expect(r.status).toBe(200);
    expect(r.json.images).toHaveLength(3);
    expect(r.json.model).toMatchObject({ name: expect.any(String), version: expect.any(String) });
    expect(await counts(app.container.db, r.json.individual_id)).toEqual({ individuals: 1, images: 3, descriptors: 3 });
  });

  it('answers 202 with a job to poll when the job outlives JOB_WAIT_MS, and only its owner can see it', async () => {
    const owner = await signup(slow.url);
    const r = await enroll(slow.url, owner.token, await photos(2, 2));
    expect(r.status).toBe(202);
    expect(r.json).toMatchObject({ ok: true, name: 'enroll', poll: `/api/jobs/${r.json.job_id}` });
    expect(r.location).toBe(r.json.poll);
    const done = await until(async () => {
      const j = await api(slow.url, 'GET', r.json.poll, { token: owner.token });
      return j.json.status === 'completed' ? j.json : undefined;
    });
    expect(done.result.images).toHaveLength(2);
    const stranger = await signup(slow.url);
    const peek = await api(slow.url, 'GET', r.json.poll, { token: stranger.token });
    const missing = await api(slow.url, 'GET', '/api/jobs/no-such-job', { token: stranger.token });
    expect(peek.status).toBe(404);
    expect(peek.text).toBe(missing.text);
  });

  it('fails an undecodable photo at once, without retries, rows or blobs', async () => {
    const truncated = (await textureImage(3, 256)).subarray(0, 600);
    const r = await enroll(app.url, token, [truncated]);
    expect(r.status).toBe(422);
    // Enrolment names every refused photo in one 422; this one for being undecodable.
    expect(r.json).toMatchObject({
      ok: false,
      code: 'photos_refused',
      detail: 'files',
      overridable: false,
      refused: [{ index: 0, reasons: ['image_undecodable'], warning: false }],
    });
    if (mode === 'embedded') {
      // The embedded queue keeps its jobs in the database: the failed job ran exactly once.
      const jobs = await app.container.db.query<{ attempts: number }>(
        `select attempts from jobs where state = 'failed' and name = 'enroll'`,
      );
      expect(jobs.rows).toEqual([{ attempts: 1 }]);
    }
    const images = await app.container.db.query<{ n: number }>(
      'select count(*)::int as n from images i join blobs b on b.cid = i.cid where b.size = 600',
    );
    expect(images.rows[0]!.n).toBe(0);
    const blobs = await app.container.db.query<{ n: number }>('select count(*)::int as n from blobs where size = 600');
    expect(blobs.rows[0]!.n).toBe(0);
  });
});
