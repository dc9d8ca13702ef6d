/**
 * Issue 39 item 7 in Chromium at phone (390×844) and desktop (1280×900) size, real engine:
 * three other photos of an enrolled cow warn before a second cow is made, showing the cow they
 * look like with its photos, and "this one" adds them to it; a second record of the cow, enrolled
 * as "a different one", is merged from the cow's page (candidates with photos, a dialog that says
 * in one sentence what will move) and un-merged again, both acts on the timeline; the delete
 * dialog says what goes and what stays. Screenshots go where support/screenshots.ts says.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { uniqueName } from '../support/postgres.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { ensureWebBuilt, launchChromium, signUpInApp } from '../support/browser.js';
import { screenshotPath } from '../support/screenshots.js';
import { animalScene } from '../../workers/src/vision/testing/animal-scene.js';

const VIEWPORTS = [
  { size: 'phone', viewport: { width: 390, height: 844 }, isMobile: true },
  { size: 'desktop', viewport: { width: 1280, height: 900 }, isMobile: false },
] as const;
const scenes = async (coat: number, from: number, n: number) =>
  (await Promise.all(Array.from({ length: n }, (_, i) => animalScene({ coat, shot: from + i, dx: (i - 1) * 25 })))).map((buffer, i) => ({
    name: `cow-${coat}-${from + i}.jpg`,
    mimeType: 'image/jpeg',
    buffer,
  }));

describe('duplicate warning, merge and un-merge in Chromium', () => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    ensureWebBuilt('web/dist/sw.js');
    app = await startTestApp({ env: { RATE_LIMIT_PER_MIN: '100000' } });
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
    let visits = 0;
    const cows: Record<string, string> = {};
    const shot = async (name: string) => {
      await page.screenshot({ path: screenshotPath(`${size}-39-7-${name}.png`), fullPage: false });
    };
    const expectFits = async () =>
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
    const db = <T>(sql: string, params: unknown[]) => app.container.db.query<T>(sql, params).then((r) => r.rows);
    const photosOf = async (did: string) =>
      (await db<{ n: number }>('select count(*)::int as n from images where individual_id = $1', [did.split(':').pop()]))[0]!.n;
    const alive = async (did: string) =>
      (await db<{ deleted_at: Date | null }>('select deleted_at from individuals where id = $1', [did.split(':').pop()]))[0]!.deleted_at ===
      null;
    const open = async (hash: string) => page.goto(`${app.url}/?visit=${++visits}#${hash}`);
    async function enrolThroughApp(files: Awaited<ReturnType<typeof scenes>>, name: string) {
      await open('/enrol/animal');
      await page.locator('select[name=species] option[value=cattle]').waitFor({ state: 'attached' });
      await page.setInputFiles('form[name=enrol] input[type=file]', files);
      await page.selectOption('select[name=species]', 'cattle');
      await page.fill('input[name=farm_id]', 'trai-39');
      await page.fill('input[name=name]', name);
      await page.click('form[name=enrol] button[type=submit]');
    }
    const enrolled = async () => {
      await page.getByText('Đã đăng ký.').waitFor({ timeout: 90_000 });
      return decodeURIComponent((await page.locator('.notice.ok a').getAttribute('href'))!.replace('#/animal/', ''));
    };

    beforeAll(async () => {
      ctx = await browser.newContext({ viewport, isMobile, hasTouch: isMobile, locale: 'vi-VN' });
      page = await ctx.newPage();
      await signUpInApp(page, `${app.url}/`, uniqueName(`dup_${size}_`).toLowerCase());
    }, 60_000);
    afterAll(() => ctx?.close());

    it('warns that other photos show a cow already enrolled, with its photos; "this one" adds them to it', async () => {
      await enrolThroughApp(await scenes(35, 1, 3), 'Bông');
      cows.bong = await enrolled();
      await enrolThroughApp(await scenes(35, 5, 3), 'Bông lần hai');
      const add = page.locator('button[name=add-to-existing]');
      await add.waitFor({ timeout: 90_000 });
      expect(await page.locator('.notice.warn').first().textContent()).toContain('Những ảnh này giống Bông, một con bạn đã đăng ký.');
      expect(await add.textContent()).toBe('Đúng con này: thêm ảnh vào Bông');
      expect(await page.locator('button[name=enrol-anyway]').textContent()).toBe('Con khác: đăng ký con mới');
      // Bông's own photos, loaded, to compare with the ones just taken.
      const theirs = page.locator('.duplicate img');
      expect(await theirs.count()).toBe(3);
      await expect
        .poll(() => theirs.first().evaluate((e) => (e as unknown as { naturalWidth: number }).naturalWidth), { timeout: 20_000 })
        .toBeGreaterThan(0);
      // Both answers are on screen with the warning.
      const box = (await page.locator('button[name=enrol-anyway]').boundingBox())!;
      expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
      await expectFits();
      await shot('duplicate-warning');
      await add.click();
      await page.getByText('Đã thêm ảnh. 3 ảnh mới giờ thuộc về Bông.').waitFor({ timeout: 90_000 });
      expect(await photosOf(cows.bong!)).toBe(6);
      const mine = await db<{ n: number }>(
        `select count(*)::int as n from individuals where owner_id = (select owner_id from individuals where id = $1)`,
        [cows.bong.split(':').pop()],
      );
      expect(mine[0]!.n).toBe(1);
    }, 240_000);

    it('merges a second record from the cow page with a whole-sentence dialog, then un-merges it', async () => {
      await enrolThroughApp(await scenes(35, 9, 3), 'Mận');
      await page.locator('button[name=enrol-anyway]').waitFor({ timeout: 90_000 });
      await page.click('button[name=enrol-anyway]');
      cows.man = await enrolled();
      await open(`/animal/${encodeURIComponent(cows.bong!)}`);
      const candidate = page.locator('label.merge-candidate', { hasText: 'Mận' });
      await candidate.waitFor({ timeout: 30_000 });
      // Its photo loads lazily, so only once the candidate is on screen: a phone's page may hold it below the fold.
      await candidate.scrollIntoViewIfNeeded();
      await expect
        .poll(() => candidate.locator('img').evaluate((e) => (e as unknown as { naturalWidth: number }).naturalWidth), { timeout: 20_000 })
        .toBeGreaterThan(0);
      await candidate.locator('input[name=merge-from]').check();
      await shot('merge-candidates');
      await page.click('form[name=merge] button[type=submit]');
      const dialog = page.locator('dialog.sure');
      await dialog.waitFor();
      expect(await dialog.locator('p').first().textContent()).toBe('Gộp Mận vào Bông: 3 ảnh của Mận sẽ chuyển sang Bông; có thể hoàn tác.');
      await expectFits();
      await shot('merge-dialog');
      await page.click('button[name=merge-confirm]');
      await page.locator('.timeline li', { hasText: 'Gộp cá thể' }).waitFor({ timeout: 30_000 });
      expect(await alive(cows.man!)).toBe(false);
      expect(await photosOf(cows.bong!)).toBe(9);

      const undo = page.locator('.merges button[name=unmerge]');
      await undo.waitFor();
      expect(await page.locator('.merges li p').first().textContent()).toMatch(/^Mận đã gộp vào Bông lúc .+ \(3 ảnh\)\.$/);
      await undo.click();
      await dialog.waitFor();
      expect(await dialog.locator('p').first().textContent()).toBe(
        'Tách Mận khỏi Bông: 3 ảnh sẽ trở lại Mận, và cả hai con được nhận diện riêng như trước khi gộp.',
      );
      await shot('unmerge-dialog');
      await page.click('button[name=unmerge-confirm]');
      await page.locator('.timeline li', { hasText: 'Hoàn tác gộp' }).waitFor({ timeout: 30_000 });
      expect(await alive(cows.man!)).toBe(true);
      expect(await photosOf(cows.man!)).toBe(3);
      expect(await photosOf(cows.bong!)).toBe(6);
      expect(await page.locator('.merges li p').first().textContent()).toMatch(/^Mận đã được tách lại khỏi Bông lúc .+\.$/);
      expect(await page.locator('.merges button[name=unmerge]').count()).toBe(0);
      await expectFits();
      await page.locator('.merges').scrollIntoViewIfNeeded();
      await shot('unmerged');

      // Mận's own page is back, its timeline holding both acts; the delete dialog says what goes and what stays.
      await open(`/animal/${encodeURIComponent(cows.man!)}`);
      await page.locator('.timeline li', { hasText: 'Tách lại thành con riêng' }).waitFor({ timeout: 30_000 });
      expect(await page.locator('.timeline li', { hasText: 'Đã gộp vào con khác' }).count()).toBe(1);
      await page.click('button[name=delete]');
      await dialog.waitFor();
      expect(await dialog.locator('p').first().textContent()).toBe(
        'Xoá Mận: con này và 3 ảnh của nó sẽ rời mọi danh sách và không còn được nhận diện; việc này không hoàn tác được, nhưng lịch sử của nó vẫn được giữ.',
      );
      await shot('delete-dialog');
      await page.click('button[name=delete-cancel]');
      await dialog.waitFor({ state: 'detached' });
      expect(await alive(cows.man!)).toBe(true);
    }, 240_000);
  });
});
