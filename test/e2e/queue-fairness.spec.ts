import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { batchForm, smallFruitPhotos, surface, untilDone } from '../support/fruit-batch.js';
import { photoForm, textureImage } from '../support/images.js';

/**
 * Interactive work goes first (issues 21 and 22): an owner's identify completes while their own
 * batch and another account's batch are still queued, and a batch larger than the account's
 * queued quota is one unit of it. Asserts order and completion, never a duration.
 */
describe('interactive identify ahead of bulk batches (embedded)', () => {
  let app: TestApp;
  const ROWS = 12;
  beforeAll(async () => {
    app = await startTestApp({
      env: {
        // A quota smaller than one batch: the batch must count once, or the identify below is 429.
        ACCOUNT_QUEUED_QUOTA: '3',
        // Batch rows one at a time through one engine thread: the bulk backlog is real.
        QUEUE_CONCURRENCY: 'batch=1',
        ENGINE_POOL_SIZE: '1',
        ENGINE_BATCH_SIZE: '1',
      },
    });
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
  });

  it("answers the owner's identify while both batches still have rows waiting, and the batches then finish", async () => {
    const a = await signup(app.url, 'lane_a');
    const b = await signup(app.url, 'lane_b');
    const photos = await smallFruitPhotos(ROWS, [await surface(901), await surface(902)]);
    const batchOf = async (token: string) => {
      const r = await api(app.url, 'POST', '/api/fruit/batch', { token, body: batchForm(photos) });
      expect(r.status, r.text).toBe(202);
      return r.json.batch_id as string;
    };
    const theirs = await batchOf(b.token);
    const mine = await batchOf(a.token);
    const id = await api(app.url, 'POST', '/api/identify', { token: a.token, body: photoForm([await textureImage(903, 320)]) });
    expect(id.status, id.text).toBe(200);
    expect(['match', 'uncertain', 'no_match']).toContain(id.json.verdict);
    for (const [token, batch] of [
      [a.token, mine],
      [b.token, theirs],
    ] as const) {
      const s = (await api(app.url, 'GET', `/api/fruit/batch/${batch}`, { token })).json;
      expect(s.total).toBe(ROWS);
      expect(s.done + s.failed, `batch ${batch} had finished before the identify`).toBeLessThan(ROWS);
    }
    for (const [token, batch] of [
      [a.token, mine],
      [b.token, theirs],
    ] as const) {
      const done = await untilDone(app, token, batch, 600_000);
      expect(done.done + done.failed).toBe(ROWS);
    }
  }, 900_000);
});
