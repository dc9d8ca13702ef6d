import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type Mode, type TestApp } from '../support/app.js';
import { BULK_SURFACES, batchForm, smallFruitPhotos, surface, untilDone } from '../support/fruit-batch.js';
import { otherView, photoForm } from '../support/images.js';

/**
 * A batch of 200 generated fruit photos completes: every row identified once. One spec file per
 * mode, so the two run side by side instead of one after the other. Photos are 160 px; the
 * time goes into describing each (the engine scales every photo to its keypoint size).
 */
export function bulkBatchSuite(mode: Mode): void {
  describe(`a batch of 200 fruit photos (${mode})`, () => {
    let app: TestApp;
    let owner: { token: string };
    const fruitIds: string[] = [];
    let photos: { name: string; bytes: Buffer }[];

    beforeAll(async () => {
      app = await startTestApp({ mode });
      owner = await signup(app.url, 'bulk');
      const peels = await Promise.all(BULK_SURFACES.map(surface));
      for (const peel of peels) {
        const r = await api(app.url, 'POST', '/api/fruit/enroll', {
          token: owner.token,
          body: photoForm([await otherView(peel, 1), await otherView(peel, 2)]),
        });
        expect(r.status, r.text).toBe(200);
        fruitIds.push(r.json.fruit_id);
      }
      photos = await smallFruitPhotos(200, peels);
    }, 180_000);
    afterAll(async () => {
      await app?.stop();
    });

    it('identifies every photo, each row once, and mostly the right fruit', async () => {
      const r = await api(app.url, 'POST', '/api/fruit/batch', { token: owner.token, body: batchForm(photos) });
      expect(r.status, r.text).toBe(202);
      expect(r.json.total).toBe(200);
      const b = await untilDone(app, owner.token, r.json.batch_id, 560_000);
      expect(b).toMatchObject({ status: 'done', total: 200, done: 200, failed: 0 });
      expect(b.rows.map((x: { index: number }) => x.index)).toEqual(Array.from({ length: 200 }, (_, i) => i));
      const right = b.rows.filter((x: { fruit_id?: string }, i: number) => x.fruit_id === fruitIds[i % BULK_SURFACES.length]).length;
      expect(right).toBeGreaterThanOrEqual(180);
      const rows = await app.container.db.query<{ n: number }>('select count(*)::int as n from fruit_batch_rows where batch_id = $1', [
        r.json.batch_id,
      ]);
      expect(rows.rows[0]!.n).toBe(200);
    }, 580_000);
  });
}
