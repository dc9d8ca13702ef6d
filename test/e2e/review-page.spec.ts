/**
 * Issue 24: the "To review" tab in Chromium carries the queue's count as a badge, lists the
 * waiting answers with the query photo beside the closest individuals, and a decision removes
 * the item and lowers the badge.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { photoForm, textureImage } from '../support/images.js';
import { screenshotPath } from '../support/screenshots.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('the review tab in Chromium', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    if (!existsSync('web/dist/view-review.js')) execFileSync(process.execPath, ['web/build.mjs'], { stdio: 'inherit' });
    app = await startTestApp();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    page = await (await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, locale: 'en-GB' })).newPage();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('shows the count on the tab, and deciding an item removes it and lowers the count', async () => {
    const owner = await signup(app.url, 'reviewui');
    const e = await api(app.url, 'POST', '/api/fruit/enroll', {
      token: owner.token,
      body: photoForm([await textureImage(4101, 320)], { name: 'Bưởi 7' }),
    });
    expect(e.status, JSON.stringify(e.json)).toBe(200);
    const img = (
      await app.container.db.query<{ id: string; cid: string }>('select id, cid from images where individual_id = $1', [e.json.fruit_id])
    ).rows[0]!;
    // Two stored answers awaiting a decision, shaped as the identify job stores them.
    const closest = [
      {
        rank: 1,
        individual_id: e.json.fruit_id,
        name: 'Bưởi 7',
        species: null,
        probability: 0.5,
        photos: [{ image_id: img.id, cid: img.cid, url: `/api/blobs/${img.cid}` }],
        match_lines: null,
      },
    ];
    const ids = [randomUUID(), randomUUID()];
    for (const [i, id] of ids.entries()) {
      await app.container.db.query(
        `insert into identify_queries (id, owner_id, kind, image_cids, result, created_at) values ($1, $2, 'fruit', $3, $4, now() - make_interval(secs => $5))`,
        [id, owner.id, [img.cid], { query_id: id, verdict: i ? 'no_match' : 'uncertain', candidates: [], closest }, 10 - i],
      );
    }

    await page.goto(`${app.url}/#/identify`);
    await page.fill('input[name=username]', owner.username);
    await page.fill('input[name=password]', 'Bark-and-peel-42');
    await page.click('button[name=login]');
    const badge = page.locator('nav a[href="#/review"] .badge');
    await expect.poll(() => badge.textContent(), { timeout: 30_000 }).toBe('2');

    await page.click('nav a[href="#/review"]');
    await page.locator('article.review-item').first().waitFor();
    expect(await page.locator('article.review-item').count()).toBe(2);
    await page.screenshot({ path: screenshotPath('phone-17-review-queue.png'), fullPage: true });
    const first = page.locator(`article.review-item[data-query="${ids[1]}"]`);
    expect(await first.locator('figure.candidate figcaption').textContent()).toContain('Bưởi 7');
    // The query photo and the candidate's photo load (the owner may read both).
    await expect
      .poll(
        () => first.locator('img').evaluateAll((els) => els.every((x) => (x as unknown as { naturalWidth: number }).naturalWidth > 0)),
        { timeout: 30_000 },
      )
      .toBe(true);

    await first.locator('button[name=this-one]').click();
    await expect.poll(() => page.locator('article.review-item').count(), { timeout: 30_000 }).toBe(1);
    expect(await badge.textContent()).toBe('1');
    const label = await app.container.db.query<{ verdict: string; correct_id: string }>(
      'select verdict, correct_id from identify_verdicts where query_id = $1',
      [ids[1]],
    );
    expect(label.rows[0]).toMatchObject({ verdict: 'correct', correct_id: e.json.fruit_id });

    await page.locator('article.review-item button[name=none-of-these]').click();
    await page.locator('.review-queue .notice.ok').waitFor();
    expect(await badge.isHidden()).toBe(true);
    expect((await api(app.url, 'GET', '/api/review/queue', { token: owner.token })).json.total).toBe(0);
  }, 180_000);
});
