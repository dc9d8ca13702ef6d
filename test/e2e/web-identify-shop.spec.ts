import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DETECT_CONFIDENT } from '../../shared/src/domain/animal-species.js';
import { detectableShots } from '../support/animal-shots.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { newPage } from '../support/browser.js';
import { otherView, photoForm, textureImage } from '../support/images.js';
import { screenshotPath } from '../support/screenshots.js';

/**
 * Issue 39, items 1 and 2 in the app, at phone and desktop size in real Chromium:
 * - identify never joins photos the person did not mean as one subject: after an answer the
 *   picker is empty, and adding photos to the same query is the explicit "another angle of this one";
 * - a shopper with no account looks a fruit up by photo or code and reads the honest verdict.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PASSWORD = 'Bark-and-peel-42';
const jpeg = (name: string, buffer: Buffer) => ({ name, mimeType: 'image/jpeg', buffer });

/**
 * Records, in the page, the photo names of every form the page sends to `path` (Chromium does not
 * hand a file upload's body to Playwright, so the page's own fetch is watched instead).
 */
const WATCH_SENT = (path: string) => `(() => {
  const sent = (window.__sent = []);
  const fetch0 = window.fetch.bind(window);
  window.fetch = (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input.url, location.href);
    if (url.pathname === ${JSON.stringify(path)} && init && init.body instanceof FormData) sent.push(init.body.getAll('files').map((f) => f.name));
    return fetch0(input, init);
  };
})()`;
const sentFiles = async (page: Page): Promise<string[][]> => page.evaluate('window.__sent');

describe("identify one subject at a time, and the shopper's fruit lookup, in a real browser", () => {
  let app: TestApp;
  let browser: Browser;
  const surfaces: Record<string, Buffer[]> = {};

  beforeAll(async () => {
    // `npm test` builds the app first; a single spec run builds it when it is missing.
    if (!existsSync('web/dist/view-shop.js')) execFileSync(process.execPath, ['web/build.mjs'], { stdio: 'inherit' });
    app = await startTestApp({ env: { FRUIT_PUBLIC_PER_MIN: '10000' } });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    for (const [name, seed] of [
      ['a', 3931],
      ['b', 3932],
      ['peel-phone', 3933],
      ['peel-desktop', 3935],
      ['stranger', 3934],
    ] as const) {
      const s = await textureImage(seed, 384);
      surfaces[name] = [];
      for (let k = 1; k <= 4; k++) surfaces[name]!.push(await otherView(s, seed * 10 + k));
    }
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  for (const size of ['phone', 'desktop'] as const) {
    it(`${size}: a second subject is asked alone, and "another angle of this one" adds to the same query`, async () => {
      // Two trees enrolled through the API; the farmer then signs in to the app with the same account.
      const farmer = await signup(app.url, `farmer_${size}`);
      const ids: Record<string, string> = {};
      for (const t of ['a', 'b']) {
        const r = await api(app.url, 'POST', '/api/enroll', {
          body: photoForm(surfaces[t]!.slice(0, 2), { species: 'mango', name: `Cây ${t.toUpperCase()}` }),
          token: farmer.token,
        });
        expect(r.status, r.text).toBe(200);
        ids[t] = r.json.tree_id;
      }
      const { ctx, page } = await newPage(browser, size);
      try {
        await page.addInitScript(WATCH_SENT('/api/identify'));
        await page.goto(app.url);
        await page.fill('input[name=username]', farmer.username);
        await page.fill('input[name=password]', PASSWORD);
        await page.click('button[name=login]');
        await page.locator('form[name=identify]').waitFor();
        let asked = 0;
        page.on('response', (r) => {
          if (r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/identify') asked++;
        });
        /** Waits for the n-th answer on screen; the photo names of every query sent so far. */
        const answered = async (n: number) => {
          await expect.poll(() => asked, { timeout: 30_000 }).toBe(n);
          // Asking replaced the last answer with "working": candidates on screen are this answer's.
          await page.locator('form[name=identify] ~ div .candidates').waitFor();
          return sentFiles(page);
        };
        const input = 'form[name=identify] input[type=file]';

        // The first subject: tree A.
        await page.setInputFiles(input, [jpeg('a-query.jpg', surfaces.a![2]!)]);
        await page.click('form[name=identify] button[type=submit]');
        expect((await answered(1))[0]).toEqual(['a-query.jpg']);
        expect(await page.locator(`.candidate[data-id="${ids.a}"]`).count()).toBe(1);
        await page.screenshot({ path: screenshotPath(`${size}-39-identify-first.png`), fullPage: true });

        // The second subject: tree B, asked alone, with nothing of tree A sent along.
        await page.setInputFiles(input, [jpeg('b-query.jpg', surfaces.b![2]!)]);
        await page.click('form[name=identify] button[type=submit]');
        expect((await answered(2))[1]).toEqual(['b-query.jpg']);
        // The answer leaves the picker empty: nothing of tree B waits to be sent with the next photo.
        expect(await page.locator('form[name=identify] .thumbs img').count()).toBe(0);
        const second = await app.container.db.query<{ image_cids: string[]; result: { candidates: { individual_id: string }[] } }>(
          'select image_cids, result from identify_queries where owner_id = $1 order by created_at desc limit 1',
          [farmer.id],
        );
        expect(second.rows[0]!.image_cids).toHaveLength(1);
        expect(await page.locator(`.candidate[data-id="${ids.b}"]`).count()).toBe(1);
        await page.locator('section.another-angle').waitFor();
        expect(await page.locator('.query-count').textContent()).toContain('1 ảnh');

        // Another angle of this one: the same subject, sent with the photo already asked.
        await page.setInputFiles('section.another-angle input[name=another-angle]', [jpeg('b-angle.jpg', surfaces.b![3]!)]);
        expect((await answered(3))[2]).toEqual(['b-query.jpg', 'b-angle.jpg']);
        await expect.poll(async () => (await page.locator('.query-count').textContent()) ?? '', { timeout: 30_000 }).toContain('2 ảnh');
        const third = await app.container.db.query<{ image_cids: string[] }>(
          'select image_cids from identify_queries where owner_id = $1 order by created_at desc limit 1',
          [farmer.id],
        );
        expect(third.rows[0]!.image_cids).toHaveLength(2);
        expect(third.rows[0]!.image_cids[0]).toBe(second.rows[0]!.image_cids[0]);
        expect(await page.locator(`.candidate[data-id="${ids.b}"]`).count()).toBe(1);
        await page.screenshot({ path: screenshotPath(`${size}-39-identify-another-angle.png`), fullPage: true });

        // In English the button says so too (the app is bilingual).
        await page.click('button[name=lang]');
        await page.locator('form[name=identify]').waitFor();
        await page.setInputFiles(input, [jpeg('a-again.jpg', surfaces.a![3]!)]);
        await page.click('form[name=identify] button[type=submit]');
        expect((await answered(4))[3]).toEqual(['a-again.jpg']);
        expect(await page.locator('section.another-angle label').textContent()).toContain('Add another angle of this same one');
      } finally {
        await ctx.close();
      }
    });

    it(`${size}: asks for two or three angles of one subject by default, and sends them as one query`, async () => {
      const farmer = await signup(app.url, `angles_${size}`);
      const r = await api(app.url, 'POST', '/api/enroll', {
        body: photoForm(surfaces.b!.slice(0, 2), { species: 'mango', name: 'Cây góc' }),
        token: farmer.token,
      });
      expect(r.status, r.text).toBe(200);
      const { ctx, page } = await newPage(browser, size);
      try {
        await page.addInitScript(WATCH_SENT('/api/identify'));
        await page.goto(app.url);
        await page.fill('input[name=username]', farmer.username);
        await page.fill('input[name=password]', PASSWORD);
        await page.click('button[name=login]');
        const form = page.locator('form[name=identify]');
        await form.waitFor();
        const guide = form.locator('.angles');
        const submit = form.locator('button[type=submit]');
        // Before any photo: the guide asks for 2–3 angles of the one subject, worded for its kind.
        expect(await guide.innerText()).toContain('2–3 góc vỏ thân của cùng một cây');
        await form.locator('fieldset.segmented label', { hasText: 'Vật nuôi' }).click();
        expect(await guide.innerText()).toContain('mặt hoặc mõm, rồi hai bên hông');
        await form.locator('fieldset.segmented label', { hasText: /^Cây$/ }).click();
        expect(await guide.innerText()).toContain('cùng một cây');

        // One photo: the guide offers the next angle, and the button says how many photos it sends.
        await page.setInputFiles('form[name=identify] input[type=file]', [jpeg('b-1.jpg', surfaces.b![2]!)]);
        expect(await guide.innerText()).toContain('Đã có 1 góc');
        expect(await submit.innerText()).toBe('Nhận dạng từ 1 ảnh');
        // "Add another angle" opens the same picker: the photo joins this subject's photos.
        const [chooser] = await Promise.all([page.waitForEvent('filechooser'), guide.locator('button[name=add-angle]').click()]);
        await chooser.setFiles([jpeg('b-2.jpg', surfaces.b![3]!)]);
        expect(await guide.innerText()).toContain('Đủ góc: 2 ảnh');
        expect(await submit.innerText()).toBe('Nhận dạng từ 2 ảnh');
        expect(await guide.locator('button[name=add-angle]').count()).toBe(0);
        await page.screenshot({ path: screenshotPath(`${size}-41-identify-angles.png`), fullPage: true });

        await submit.click();
        await page.locator('form[name=identify] ~ div .candidates').waitFor({ timeout: 60_000 });
        expect(await sentFiles(page)).toEqual([['b-1.jpg', 'b-2.jpg']]);
        const q = await app.container.db.query<{ image_cids: string[] }>('select image_cids from identify_queries where owner_id = $1', [
          farmer.id,
        ]);
        expect(q.rows).toHaveLength(1);
        expect(q.rows[0]!.image_cids).toHaveLength(2);
        // Answered: the picker is empty, and the guide asks for the next subject's angles afresh.
        expect(await form.locator('.thumbs img').count()).toBe(0);
        expect(await guide.innerText()).toContain('2–3 góc');
        expect(await submit.innerText()).toBe('Nhận dạng');
      } finally {
        await ctx.close();
      }
    });

    it(`${size}: a shopper with no account looks a fruit up by photo or code and reads the honest verdict`, async () => {
      // A grower publishes a tree and one fruit on it.
      const grower = await signup(app.url, `grower_${size}`);
      const tree = await api(app.url, 'POST', '/api/enroll', {
        body: photoForm(surfaces.a!.slice(0, 2), { species: 'mango', lat: '10.03', lon: '105.78' }),
        token: grower.token,
      });
      expect(tree.status, tree.text).toBe(200);
      const code = (await api(app.url, 'POST', `/api/tree/${tree.json.tree_id}/publish`, { token: grower.token, form: {} })).json
        .code as string;
      expect(code).toBeTruthy();
      const fruit = await api(app.url, 'POST', '/api/fruit/enroll', {
        body: photoForm(surfaces[`peel-${size}`]!.slice(0, 2), { species: 'mango', name: `Xoài ${size}`, tree_id: tree.json.tree_id }),
        token: grower.token,
      });
      expect(fruit.status, fruit.text).toBe(200);
      const fruitId = fruit.json.fruit_id as string;
      expect((await api(app.url, 'POST', `/api/fruit/${fruitId}/publish`, { token: grower.token })).status).toBe(200);
      const cow = (await detectableShots(3, 1, { minScore: DETECT_CONFIDENT }))[0]!.photo;

      const { ctx, page } = await newPage(browser, size);
      try {
        await page.goto(app.url);
        await page.click('a[name=shop]');
        await page.locator('form[name=shop-photo]').waitFor();
        // No account: no session cookie, no tabs.
        expect((await ctx.cookies()).find((c) => c.name === 'markless_session')).toBeUndefined();
        expect(await page.locator('nav a').count()).toBe(0);
        const lookup = async (name: string, photo: Buffer) => {
          const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/fruit/lookup');
          await page.setInputFiles('form[name=shop-photo] input[type=file]', [jpeg(name, photo)]);
          await page.click('form[name=shop-photo] button[type=submit]');
          const body = await (await answer).json();
          await page.locator('.shop-answer .verdict').waitFor();
          return body;
        };

        // The published fruit itself: first, with photos, never more sure than the verdict.
        const same = await lookup('same.jpg', surfaces[`peel-${size}`]![2]!);
        expect(await page.locator('.shop-answer .verdict').getAttribute('data-verdict')).toBe(same.verdict);
        expect(['match', 'uncertain']).toContain(same.verdict);
        const first = page.locator('.shop-answer .candidate').first();
        expect(await first.getAttribute('data-id')).toBe(fruitId);
        expect(await first.getAttribute('data-confidence')).toBe(same.verdict === 'match' ? 'match' : 'possible');
        expect(await first.locator('h3').textContent()).toContain(`Xoài ${size}`);
        await expect
          .poll(
            () =>
              first
                .locator('figure img')
                .nth(1)
                .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
            { timeout: 30_000 },
          )
          .toBeGreaterThan(0);
        expect(await page.locator('.shop-answer .verdict').textContent()).toBe(same.message);
        await page.screenshot({ path: screenshotPath(`${size}-39-shop-published.png`), fullPage: true });

        // A fruit nobody published: not a match, and nothing on screen says it is.
        const stranger = await lookup('stranger.jpg', surfaces.stranger![2]!);
        expect(stranger.verdict).not.toBe('match');
        expect(await page.locator('.shop-answer .verdict').getAttribute('data-verdict')).toBe(stranger.verdict);
        expect(await page.locator('.shop-answer [data-confidence=match]').count()).toBe(0);

        // A cow: not a fruit, no fruit offered.
        await lookup('cow.jpg', cow);
        expect(await page.locator('.shop-answer .verdict').getAttribute('data-verdict')).toBe('not_fruit');
        expect(await page.locator('.shop-answer .verdict').textContent()).toContain('không phải ảnh quả');
        expect(await page.locator('.shop-answer .candidate').count()).toBe(0);
        await page.screenshot({ path: screenshotPath(`${size}-39-shop-not-fruit.png`), fullPage: true });

        // The candidate's public page: its tree's /t/{code}.
        await lookup('same-again.jpg', surfaces[`peel-${size}`]![3]!);
        const link = page.locator(`.shop-answer .candidate[data-id="${fruitId}"] a[name=public-page]`);
        expect(await link.getAttribute('href')).toBe(`/t/${encodeURIComponent(code)}`);
        await Promise.all([page.waitForURL(`**/t/${encodeURIComponent(code)}`), link.click()]);
        expect(await page.locator('body').textContent()).toContain(code);

        // A typed code: a mistyped one is a sentence on the same screen, the right one opens its page.
        await page.goto(`${app.url}/#/shop`);
        await page.fill('form[name=shop-code] input[name=code]', 'NOT-A-CODE');
        await page.click('form[name=shop-code] button[type=submit]');
        await page.locator('.shop-answer .notice.error').waitFor();
        await page.fill('form[name=shop-code] input[name=code]', code);
        await Promise.all([page.waitForURL(`**/t/${encodeURIComponent(code)}`), page.click('form[name=shop-code] button[type=submit]')]);
      } finally {
        await ctx.close();
      }
    });
  }
});
