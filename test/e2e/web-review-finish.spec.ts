/**
 * Issue 39, items 9 and 10 in the app, at phone and desktop size in real Chromium:
 * - review: the photo to identify stays in view while the candidates are compared, every photo
 *   keeps its own shape, and no candidate offered with "this one" is called unlikely;
 * - the unfinished spots: refusal codes read as words, file fields are buttons in the app's
 *   language with the chosen count and a focus ring, the photo picker shows focus, the remove
 *   button is named, the heading follows a rename, and the tabs put what the account uses first.
 */
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { ensureWebBuilt, launchChromium, switchAccount } from '../support/browser.js';
import { blankImage, photoForm, textureImage } from '../support/images.js';
import { screenshotPath } from '../support/screenshots.js';

const VIEWPORTS = [
  { size: 'phone', viewport: { width: 390, height: 844 }, isMobile: true },
  { size: 'desktop', viewport: { width: 1280, height: 900 }, isMobile: false },
] as const;
const jpeg = (name: string, buffer: Buffer) => ({ name, mimeType: 'image/jpeg', buffer });
/** A tall photo (1:2), as a face photographed upright is: a square crop would cut it. */
const tallPhoto = async (seed: number) =>
  sharp(await textureImage(seed, 640))
    .extract({ left: 0, top: 0, width: 320, height: 640 })
    .jpeg({ quality: 90 })
    .toBuffer();

/** The outline the page draws around `selector` (none when it draws no focus ring). */
/** The page's own DOM, typed as far as these checks read it (the test's lib has no DOM types). */
interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
interface El {
  getBoundingClientRect(): Box;
  contains(other: unknown): boolean;
  naturalWidth: number;
  naturalHeight: number;
}
interface Win {
  getComputedStyle(el: unknown): { outlineStyle: string; outlineWidth: string; objectFit: string };
  document: { elementFromPoint(x: number, y: number): unknown };
}

/** The outline the page draws around `selector` (none when it draws no focus ring). */
const outlineOf = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => {
      const s = (globalThis as unknown as Win).getComputedStyle(el);
      return { style: s.outlineStyle, width: parseFloat(s.outlineWidth) };
    });

describe('review and the unfinished spots in a real browser', () => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    ensureWebBuilt('web/dist/pickers.js');
    app = await startTestApp({ engine: 'deterministic', env: { RATE_LIMIT_PER_MIN: '100000' } });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  // The two sizes run side by side on the one service, each with its own accounts and browser
  // context; within a size the tests run in order.

  describe.concurrent.each(VIEWPORTS)('at $size size', ({ size, viewport, isMobile }) => {
    const it = vitestIt.sequential;
    let ctx: BrowserContext;
    let page: Page;
    let owner: { token: string; username: string; id: string };

    beforeAll(async () => {
      ctx = await browser.newContext({ viewport, isMobile, hasTouch: isMobile, locale: 'vi-VN' });
      page = await ctx.newPage();
      owner = await signup(app.url, `finish_${size}`);
    });
    afterAll(async () => ctx?.close());

    /** Signs `who` in, signing out whoever this browser holds first. */
    async function signIn(who: { username: string }) {
      await switchAccount(page, `${app.url}/#/identify`, who);
      await page.locator('nav').waitFor({ timeout: 30_000 });
    }

    it('review: the query photo stays in view beside the candidates, photos keep their shape, no "unlikely" beside "this one"', async () => {
      // Six fruit with tall photos: five candidates and one whose photo is the query.
      const fruit: { id: string; cid: string; name: string }[] = [];
      for (let i = 0; i < 6; i++) {
        const name = `Táo ${size} ${i + 1}`;
        const e = await api(app.url, 'POST', '/api/fruit/enroll', {
          token: owner.token,
          body: photoForm([await tallPhoto(5200 + i + (size === 'phone' ? 0 : 50))], { name }),
        });
        expect(e.status, JSON.stringify(e.json)).toBe(200);
        const cid = (await app.container.db.query<{ cid: string }>('select cid from images where individual_id = $1', [e.json.fruit_id]))
          .rows[0]!.cid;
        fruit.push({ id: e.json.fruit_id, cid, name });
      }
      const probabilities = [0.62, 0.21, 0.12, 0.06, 0.03];
      const closest = fruit.slice(0, 5).map((f, i) => ({
        rank: i + 1,
        individual_id: f.id,
        name: f.name,
        species: null,
        probability: probabilities[i],
        photos: [{ image_id: randomUUID(), cid: f.cid, url: `/api/blobs/${f.cid}` }],
        match_lines: null,
      }));
      for (const [i, verdict] of (['uncertain', 'no_match'] as const).entries()) {
        const id = randomUUID();
        await app.container.db.query(
          `insert into identify_queries (id, owner_id, kind, image_cids, result, created_at) values ($1, $2, 'fruit', $3, $4, now() - make_interval(secs => $5))`,
          [id, owner.id, [fruit[5]!.cid], { query_id: id, verdict, candidates: [], closest }, 10 - i],
        );
      }

      await signIn(owner);
      await page.goto(`${app.url}/#/review`);
      const item = page.locator('article.review-item').first();
      await item.waitFor({ timeout: 30_000 });
      const imgs = item.locator('img');
      await imgs.last().scrollIntoViewIfNeeded();
      await expect
        .poll(() => imgs.evaluateAll((els) => els.every((x) => (x as unknown as { naturalWidth: number }).naturalWidth > 0)), {
          timeout: 30_000,
        })
        .toBe(true);

      // Every photo is drawn at its own shape: what shows is the whole 1:2 photo, never a square cut of it.
      // Every photo shows whole at its own shape: letterboxed by `contain`, or in a box of its own proportions.
      const shapes = await imgs.evaluateAll((els) =>
        (els as unknown as El[]).map((img) => {
          const box = img.getBoundingClientRect();
          const fit = (globalThis as unknown as Win).getComputedStyle(img).objectFit;
          return fit === 'contain' || Math.abs(box.width / box.height - img.naturalWidth / img.naturalHeight) < 0.03;
        }),
      );
      expect(shapes).toEqual(shapes.map(() => true));

      // Wording: the candidates are named by how alike they look, never "unlikely" under a confirm button.
      const captions = await item.locator('figure.candidate figcaption').allTextContents();
      expect(captions).toHaveLength(5);
      for (const c of captions) expect(c).not.toMatch(/ít khả năng|unlikely|gần như chắc chắn/);
      expect(captions[0]).toContain('khá giống (62%)');
      expect(captions[2]).toContain('hơi giống (12%)');

      // Comparing the last candidate: the query photo is still on screen, below the header, and the candidate's button is not under it.
      const last = item.locator('figure.candidate').last();
      await last.locator('button[name=this-one]').scrollIntoViewIfNeeded();
      expect(await page.evaluate<number>('window.scrollY')).toBeGreaterThan(0);
      const headerBottom = await page.evaluate<number>('document.querySelector("header").getBoundingClientRect().bottom');
      const query = (await item.locator('figure.query img').boundingBox())!;
      expect(query.y).toBeGreaterThanOrEqual(headerBottom - 1);
      expect(query.y + query.height).toBeLessThanOrEqual(viewport.height);
      expect(query.height).toBeGreaterThan(80);
      const lastImg = (await last.locator('img').boundingBox())!;
      expect(lastImg.y + lastImg.height).toBeGreaterThan(0);
      // Nothing (the pinned query strip) is drawn over the candidate's button.
      const buttonOnTop = await last.locator('button[name=this-one]').evaluate((el) => {
        const b = el as unknown as El;
        const r = b.getBoundingClientRect();
        return b.contains((globalThis as unknown as Win).document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2));
      });
      expect(buttonOnTop).toBe(true);
      await page.screenshot({ path: screenshotPath(`${size}-39-review-compare.png`) });
      // Going back up by keyboard (focus scrolls to the nearest edge, the top): the first candidate's
      // whole button stops below the pinned strip, not under it.
      await page.evaluate('window.scrollTo(0, document.body.scrollHeight)');
      const first = item.locator('figure.candidate').first().locator('button[name=this-one]');
      await first.focus();
      const strip = (await item.locator('figure.query').boundingBox())!;
      const button = (await first.boundingBox())!;
      expect(button.y).toBeGreaterThanOrEqual(Math.max(headerBottom, size === 'phone' ? strip.y + strip.height : 0) - 1);
      expect(button.y + button.height).toBeLessThanOrEqual(viewport.height);
    }, 180_000);

    it('tabs: an account with only fruit sees the batch tab first and the herd tabs last', async () => {
      // This owner enrolled fruit only (the review test above).
      await signIn(owner);
      const visible = async () =>
        page
          .locator('nav > a')
          .evaluateAll((els) =>
            els.filter((a) => (a as unknown as { offsetParent: unknown }).offsetParent).map((a) => a.getAttribute('href')),
          );
      expect(await visible()).toEqual(['#/identify', '#/batch', '#/enrol', '#/mine', '#/review', '#/population', '#/survey']);
      expect(await page.locator('nav a.later').evaluateAll((els) => els.map((a) => a.getAttribute('href')))).toEqual([
        '#/population',
        '#/survey',
      ]);
      await page.screenshot({ path: screenshotPath(`${size}-39-tabs-packing-house.png`) });

      // A herd owner: the herd and survey tabs come first and the batch is folded.
      const herd = await signup(app.url, `herd_${size}`);
      const shots = await Promise.all([1, 2, 3].map((k) => textureImage(6100 + k + (size === 'phone' ? 0 : 10), 480)));
      const e = await api(app.url, 'POST', '/api/animal/enroll', {
        token: herd.token,
        body: photoForm(shots, { species: 'cattle', farm_id: `farm-${size}`, name: 'Mận', accept_warnings: 'true' }),
      });
      expect(e.status, JSON.stringify(e.json)).toBe(200);
      await signIn(herd);
      expect(await visible()).toEqual(['#/identify', '#/population', '#/survey', '#/enrol', '#/mine', '#/review', '#/batch']);
      expect(await page.locator('nav a.later').evaluateAll((els) => els.map((a) => a.getAttribute('href')))).toEqual(['#/batch']);
    }, 120_000);

    it('photo picker: a focus ring when its input has focus, and each remove button named by its photo', async () => {
      await signIn(owner);
      await page.goto(`${app.url}/#/identify`);
      const input = page.locator('input[name=photos]');
      await input.focus();
      const ring = await outlineOf(page, 'label.camera');
      expect(ring.style).not.toBe('none');
      expect(ring.width).toBeGreaterThan(0);
      await input.setInputFiles([jpeg('a.jpg', await textureImage(7001, 256)), jpeg('b.jpg', await textureImage(7002, 256))]);
      await page.getByRole('button', { name: 'Bỏ ảnh 2' }).click();
      expect(await page.locator('.thumbs figure').count()).toBe(1);
      expect(await page.getByRole('button', { name: '×' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Bỏ ảnh 1' }).count()).toBe(1);
    }, 60_000);

    // The test's own `expect`, for expect.poll in a concurrent suite (see field-review.spec.ts).
    it('batch and survey: file fields in Vietnamese with the chosen count and a focus ring; a blurred photo is refused in words', async ({
      expect,
    }) => {
      await signIn(owner);
      await page.goto(`${app.url}/#/batch`);
      const files = page.locator('form[name=batch] input[name=files]');
      await files.waitFor({ state: 'attached' });
      // The browser's own "Choose Files / No file chosen" is not shown: the input is visually hidden inside a labelled button.
      expect((await files.boundingBox())?.width ?? 0).toBeLessThanOrEqual(1);
      const field = page.locator('form[name=batch] label.file-field', { has: page.locator('input[name=files]') });
      expect(await field.textContent()).toContain('Chọn ảnh');
      expect(await field.textContent()).toContain('Chưa chọn tệp nào');
      await files.focus();
      expect((await outlineOf(page, 'label.file-field:focus-within .file-button')).style).not.toBe('none');
      await files.setInputFiles([jpeg('blank.jpg', await blankImage(480)), jpeg('apple.jpg', await textureImage(7101, 480))]);
      expect(await field.textContent()).toContain('Đã chọn 2 tệp');
      expect(await page.locator('label.file-field', { has: page.locator('input[name=archive]') }).textContent()).toContain('Chọn tệp zip');
      await page.screenshot({ path: screenshotPath(`${size}-39-batch-file-field.png`) });
      await page.locator('form[name=batch] button[type=submit]').click();
      const blank = page.locator('tr', { hasText: 'blank.jpg' }).first();
      await expect.poll(() => blank.textContent(), { timeout: 60_000 }).toContain('ảnh bị mờ');
      const main = (await page.locator('main').textContent()) ?? '';
      expect(main).not.toMatch(/too_blurred|too_dark|too_small|\{reasons\}/);

      await page.goto(`${app.url}/#/survey`);
      const video = page.locator('input[type=file][accept="video/*"]');
      await video.waitFor({ state: 'attached' });
      expect((await video.boundingBox())?.width ?? 0).toBeLessThanOrEqual(1);
      const videoField = page.locator('label.file-field', { has: video });
      expect(await videoField.textContent()).toContain('Chọn video');
      expect(await videoField.textContent()).toContain('Chưa chọn tệp nào');
      await page.screenshot({ path: screenshotPath(`${size}-39-survey-file-field.png`) });
    }, 120_000);

    it('animal page: the add-photos field is a labelled button, and the heading takes the new name after a rename', async () => {
      const herd = await signup(app.url, `rename_${size}`);
      const shots = await Promise.all([1, 2, 3].map((k) => textureImage(6200 + k + (size === 'phone' ? 0 : 10), 480)));
      const e = await api(app.url, 'POST', '/api/animal/enroll', {
        token: herd.token,
        body: photoForm(shots, { species: 'cattle', farm_id: `farm-r-${size}`, name: 'Bông', accept_warnings: 'true' }),
      });
      expect(e.status, JSON.stringify(e.json)).toBe(200);
      await signIn(herd);
      await page.goto(`${app.url}/#/animal/${encodeURIComponent(e.json.animal_did)}`);
      const add = page.locator('input[name=add-photos]');
      await add.waitFor({ state: 'attached', timeout: 30_000 });
      expect((await add.boundingBox())?.width ?? 0).toBeLessThanOrEqual(1);
      expect(await page.locator('label.file-field', { has: add }).textContent()).toContain('Chọn ảnh');

      expect(await page.locator('h2').first().textContent()).toBe('Bông');
      await page.fill('form[name=rename] input[name=name]', 'Bông Lúa');
      await page.locator('form[name=rename] button[type=submit]').click();
      await page.locator('form[name=rename] .notice.ok').waitFor({ timeout: 30_000 });
      expect(await page.locator('h2').first().textContent()).toBe('Bông Lúa');
      await page.screenshot({ path: screenshotPath(`${size}-39-animal-renamed.png`) });
    }, 120_000);
  });
});
