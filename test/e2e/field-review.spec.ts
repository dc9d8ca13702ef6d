/**
 * The field app for a herd owner (issue 24), in Chromium at phone and desktop size: `/` serves
 * the app; a coat close-up with no detectable animal enrols; identify shows several candidates
 * with match lines; "this one" adds the photo and the timeline shows it; "none of these" enrols a
 * new animal keeping the photo; the duplicate warning, adding the photos to the animal it names,
 * and a merge; a dark photo kept on the owner's say-so; an event added from the app;
 * a photo taken offline is uploaded when the network returns. Every flow runs and is asserted at
 * both sizes, each size with its own owner on one started service. Screenshots go where support/screenshots.ts says.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it as vitestIt } from 'vitest';
import { uniqueName } from '../support/postgres.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { chooseKind, ensureWebBuilt, launchChromium, submitSignIn } from '../support/browser.js';
import { textureImage } from '../support/images.js';
import { screenshotPath } from '../support/screenshots.js';
import { animalScene } from '../../workers/src/vision/testing/animal-scene.js';

/** Every flow runs at both sizes, each with its own browser context and its own owner (their herds do not meet). */
const VIEWPORTS = [
  { size: 'phone', viewport: { width: 390, height: 844 }, isMobile: true },
  { size: 'desktop', viewport: { width: 1280, height: 900 }, isMobile: false },
] as const;
const jpeg = (name: string, buffer: Buffer) => ({ name, mimeType: 'image/jpeg', buffer });
const scenes = (coat: number, from: number, n: number) =>
  Promise.all(Array.from({ length: n }, (_, i) => animalScene({ coat, shot: from + i, dx: (i - 1) * 25 })));

describe("the herd owner's field app in Chromium", () => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    ensureWebBuilt('web/dist/sw.js');
    // Both viewports' browsers reach the service from one address: twice the flows in a few
    // minutes would pass the per-address budget of 600 requests a minute meant for one client.
    app = await startTestApp({ env: { RATE_LIMIT_PER_MIN: '100000' } });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  // The two sizes run side by side on the one service (their owners' herds do not meet), each
  // size's flows in order: one size's waits (a 429's Retry-After, a job) overlap the other's work.
  describe.concurrent.each(VIEWPORTS)('at $size size ($viewport.width×$viewport.height)', ({ size, viewport, isMobile }) => {
    /** This size's flows build on each other: one after another (the suite around them is concurrent). */
    const it = vitestIt.sequential;
    let ctx: BrowserContext;
    let page: Page;
    const username = uniqueName(`herd_${size}_`).toLowerCase();
    const animals: Record<string, string> = {};
    let visits = 0;

    const shot = async (name: string) => {
      await page.evaluate('window.scrollTo(0, 0)');
      await page.screenshot({ path: screenshotPath(`${size}-${name}.png`), fullPage: true });
    };
    /** Nothing on the page is wider than the window (a long file name once widened a phone's to 473 px). */
    const expectFits = async () =>
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
    /** The answer to a tap is on screen: below the sticky header, above the fold (a refusal once was off screen on a phone). */
    const expectInView = async (selector: string) => {
      const box = (await page.locator(selector).first().boundingBox())!;
      expect(box.y, selector).toBeGreaterThanOrEqual(
        await page.evaluate<number>('document.querySelector("header").getBoundingClientRect().bottom'),
      );
      expect(box.y + box.height, selector).toBeLessThanOrEqual(viewport.height);
    };
    const photosOf = async (did: string) =>
      (
        await app.container.db.query<{ n: number }>('select count(*)::int as n from images where individual_id = $1', [
          did.split(':').pop(),
        ])
      ).rows[0]!.n;
    /** Waits for the "enrolled" notice and answers the animal it links to. */
    const enrolled = async () => {
      await page.getByText('Đã đăng ký.').waitFor({ timeout: 90_000 });
      return decodeURIComponent((await page.locator('.notice.ok a').getAttribute('href'))!.replace('#/animal/', ''));
    };

    async function enrolThroughApp(files: { name: string; mimeType: string; buffer: Buffer }[], name: string) {
      // A fresh page each time (a hash-only navigation would keep the previous form's photos).
      await page.goto(`${app.url}/?visit=${++visits}#/enrol/animal`);
      await page.locator('select[name=species] option[value=cattle]').waitFor({ state: 'attached' });
      await page.setInputFiles('form[name=enrol] input[type=file]', files);
      await page.selectOption('select[name=species]', 'cattle');
      await page.fill('input[name=name]', name);
    }

    beforeAll(async () => {
      ctx = await browser.newContext({ viewport, isMobile, hasTouch: isMobile, locale: 'vi-VN' });
      page = await ctx.newPage();
    });
    afterAll(() => ctx?.close());

    it('serves the app at / (Swagger stays at /docs), installable: manifest, icons, service worker', async () => {
      const root = await api(app.url, 'GET', '/');
      expect(root.status).toBe(200);
      expect(root.text).toContain('/app/main.js');
      expect(root.text).toContain('rel="manifest"');
      expect((await api(app.url, 'GET', '/docs')).text).toMatch(/swagger/i);
      const manifest = await api(app.url, 'GET', '/manifest.webmanifest');
      expect(manifest.headers.get('content-type')).toBe('application/manifest+json');
      for (const icon of JSON.parse(manifest.text).icons) expect((await fetch(app.url + icon.src)).status, icon.src).toBe(200);
      expect((await fetch(`${app.url}/sw.js`)).status).toBe(200);
      await page.goto(`${app.url}/`);
      await page.getByRole('heading', { name: 'Đăng nhập' }).waitFor();
      await submitSignIn(page, username, 'signup');
      await expect
        .poll(() => page.evaluate('navigator.serviceWorker.getRegistration().then((r) => Boolean(r && r.active))'), { timeout: 30_000 })
        .toBe(true);
    }, 60_000);

    it('enrols a cow from coat close-ups the detector finds no animal in, farm remembered next time', async () => {
      const closeUps = await Promise.all(
        [2402, 2403, 2404].map(async (s, i) =>
          jpeg(`a-very-long-file-name-from-the-phone-camera-IMG_2024_0${i}.jpg`, await textureImage(s, 480)),
        ),
      );
      await enrolThroughApp(closeUps, 'Bò Sữa 1');
      await page.fill('input[name=farm_id]', 'trai-bo');
      await shot('10-enrol-close-up');
      await page.click('form[name=enrol] button[type=submit]');
      animals.closeUp = await enrolled();
      await expectFits();
      await expectInView('.notice.ok');
      const subj = await app.container.db.query<{ subject: unknown }>(
        'select d.subject from descriptors d join images i on i.id = d.image_id where i.individual_id = $1',
        [animals.closeUp.split(':').pop()],
      );
      expect(subj.rows.map((r) => r.subject)).toEqual([null, null, null]);
      // Each enrolled photo is shown saying so: no box, the whole photo used.
      expect(await page.locator('.enrolled figure .mark').allTextContents()).toEqual(Array(3).fill('không thấy con vật: dùng cả ảnh'));
      expect(await page.locator('.enrolled .subject-box').count()).toBe(0);
      // The farm is remembered on this device.
      await page.goto(`${app.url}/?visit=${++visits}#/enrol/animal`);
      await page.locator('input[name=farm_id]').waitFor();
      expect(await page.inputValue('input[name=farm_id]')).toBe('trai-bo');
    }, 120_000);

    it('marks every refused photo on its thumbnail in one answer', async () => {
      const one = await textureImage(2410, 480);
      await enrolThroughApp([jpeg('first.jpg', one), jpeg('again.jpg', one), jpeg('third.jpg', await textureImage(2411, 480))], 'x');
      await page.click('form[name=enrol] button[type=submit]');
      await page.locator('figure.thumb.refused[data-index="1"] .mark', { hasText: 'trùng hệt' }).waitFor({ timeout: 60_000 });
      await expectInView('.notice.error');
      await expectFits();
      await shot('11-enrol-refused');
    }, 90_000);

    it("says a refusal and every failed request in the farmer's words: no API parameter, a 429 waited out on screen, a proxy's bare error named", async () => {
      const coat = await textureImage(2420, 480);
      const dark = await sharp(coat).linear(0.03, 0).jpeg().toBuffer();
      await enrolThroughApp(
        [
          jpeg('toi.jpg', dark),
          ...(await Promise.all([2421, 2422].map(async (s, i) => jpeg(`sang-${i}.jpg`, await textureImage(s, 480))))),
        ],
        'Bò tối',
      );
      await page.fill('input[name=farm_id]', 'trai-bo');
      await page.click('form[name=enrol] button[type=submit]');
      await page.locator('button[name=keep-anyway]').waitFor({ timeout: 60_000 });
      // The server's sentence tells integrators to send accept_warnings=true; the farmer gets a button.
      const refusal = await page.locator('main [aria-live]').innerText();
      expect(refusal).not.toMatch(/accept_warnings/);
      expect(refusal).toMatch(/1 ảnh không dùng được: toi\.jpg \([^)]*quá tối[^)]*\)\. Hãy chụp lại các ảnh này\./);
      expect(refusal).toContain('Đây chỉ là cảnh báo');
      await expectInView('button[name=keep-anyway]');

      // Too many requests with no body the app knows (a proxy's): waited out with the wait on screen, then said.
      let refusals = 0;
      await page.route('**/api/animal/enroll', (r) => {
        refusals++;
        return r.fulfill({ status: 429, headers: { 'Retry-After': '1' }, contentType: 'text/plain', body: 'Too Many Requests' });
      });
      await page.click('form[name=enrol] button[type=submit]');
      await page.locator('.wait', { hasText: 'Có quá nhiều yêu cầu trong một lúc. Đang đợi 1 giây' }).waitFor({ timeout: 10_000 });
      await expectInView('.wait');
      await page
        .locator('.notice.error', { hasText: 'Có quá nhiều yêu cầu trong một lúc. Hãy đợi 1 giây rồi thử lại.' })
        .waitFor({ timeout: 30_000 });
      expect(refusals).toBe(11);
      expect(await page.locator('.wait').isVisible()).toBe(false);
      await expectInView('.notice.error');
      await expectFits();
      // Any other failure without a sentence (a gateway's HTML page) names its status, in the chosen language.
      await page.unroute('**/api/animal/enroll');
      await page.route('**/api/animal/enroll', (r) => r.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad Gateway</h1>' }));
      await page.click('button[name=lang]');
      await page.locator('select[name=species] option[value=cattle]').waitFor({ state: 'attached' });
      await page.setInputFiles('form[name=enrol] input[type=file]', [jpeg('sang.jpg', coat)]);
      await page.selectOption('select[name=species]', 'cattle');
      await page.click('form[name=enrol] button[type=submit]');
      await page.locator('.notice.error', { hasText: 'The server could not complete this request (code 502). Try again later.' }).waitFor();
      await page.unroute('**/api/animal/enroll');
      await page.click('button[name=lang]');
      await page.getByRole('heading', { name: 'Đăng ký cá thể mới' }).waitFor();
    }, 90_000);

    it('identify shows several candidates with match lines; "this one" adds the photo and the timeline shows it', async () => {
      for (const coat of [7, 21]) {
        await enrolThroughApp(
          (await scenes(coat, 1, 3)).map((b, i) => jpeg(`cow-${coat}-${i}.jpg`, b)),
          `Bò ${coat}`,
        );
        await page.click('form[name=enrol] button[type=submit]');
        animals[coat] = await enrolled();
        // The detector's box is drawn on every photo it found the animal in, and only there.
        const found = await app.container.db.query<{ n: number }>(
          'select count(*)::int as n from descriptors d join images i on i.id = d.image_id where i.individual_id = $1 and d.subject is not null',
          [animals[coat]!.split(':').pop()],
        );
        expect(found.rows[0]!.n).toBeGreaterThan(0);
        expect(await page.locator('.enrolled .subject-box').count()).toBe(found.rows[0]!.n);
        expect(await page.locator('.enrolled figure .mark').count()).toBe(3 - found.rows[0]!.n);
        if (coat === 7) await shot('23-enrolled-boxes');
      }
      await page.goto(`${app.url}/?visit=${++visits}#/identify`);
      await chooseKind(page, 'form[name=identify]', 'animal');
      const [q] = await scenes(7, 9, 1);
      await page.setInputFiles('form[name=identify] input[type=file]', [jpeg('query.jpg', q!)]);
      await page.click('form[name=identify] button[type=submit]');
      await page.locator('article.candidate').nth(2).waitFor({ timeout: 90_000 });
      expect(await page.locator('article.candidate').count()).toBe(3);
      expect(await page.locator('article.candidate canvas.match-lines').count()).toBe(3);
      // The lines are drawn: the first candidate's caption names the matched points.
      expect(Number((await page.locator('article.candidate').first().locator('figcaption').innerText()).match(/\d+/)![0])).toBeGreaterThan(
        8,
      );
      // Each drawing has both photos in it (the canvas takes their proportions once both have loaded).
      await expect
        .poll(
          () =>
            page
              .locator('article.candidate canvas.match-lines')
              .evaluateAll((els) => els.every((c) => (c as unknown as { width: number }).width !== 800)),
          { timeout: 30_000 },
        )
        .toBe(true);
      // One column of candidates on a phone, two side by side from 48rem; each drawing within its card.
      const boxes = await page
        .locator('article.candidate')
        .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as { x: number; y: number; width: number }));
      const columns = viewport.width >= 768 ? 2 : 1;
      expect(new Set(boxes.map((b) => b.x)).size).toBe(columns);
      expect(boxes[1]!.y === boxes[0]!.y).toBe(columns === 2);
      expect(
        await page
          .locator('article.candidate canvas.match-lines')
          .evaluateAll((els) => els.every((c) => c.getBoundingClientRect().width <= c.closest('article')!.getBoundingClientRect().width)),
      ).toBe(true);
      await expectFits();
      await shot('12-review');
      await page.locator('article.candidate').first().locator('button[name=this-one]').click();
      await page.getByText('Đã xác nhận; ảnh đã được thêm vào con này.').waitFor({ timeout: 60_000 });
      await expectInView('.chosen .notice.ok');
      await page.locator('.chosen a.button').click();
      await page.locator('.timeline li', { hasText: 'Nhận dạng đã xác nhận' }).waitFor();
      expect(await page.locator('h3', { hasText: 'Ảnh (4)' }).count()).toBe(1);
      expect(await page.locator('.meta', { hasText: 'Bò' }).count()).toBeGreaterThan(0);
      await expectFits();
      await shot('13-animal-page');
    }, 240_000);

    it('"none of these" enrols a new animal keeping the photo', async () => {
      await page.goto(`${app.url}/?visit=${++visits}#/identify`);
      await chooseKind(page, 'form[name=identify]', 'animal');
      const [q, ...more] = await scenes(49, 1, 3);
      await page.setInputFiles('form[name=identify] input[type=file]', [jpeg('newcomer.jpg', q!)]);
      await page.click('form[name=identify] button[type=submit]');
      await page.locator('button[name=none-enrol-new]').click({ timeout: 90_000 });
      await page.locator('.kept-photo').waitFor();
      await page.locator('select[name=species] option[value=cattle]').waitFor({ state: 'attached' });
      await page.setInputFiles(
        'form[name=enrol] input[type=file]',
        more.map((b, i) => jpeg(`more-${i}.jpg`, b)),
      );
      await page.selectOption('select[name=species]', 'cattle');
      await page.fill('input[name=name]', 'Bò mới');
      await page.click('form[name=enrol] button[type=submit]');
      expect(await photosOf(await enrolled())).toBe(3);
    }, 180_000);

    it('warns before enrolling photos already enrolled, and merges two animals from the animal page', async () => {
      await enrolThroughApp(
        (await scenes(21, 1, 3)).map((b, i) => jpeg(`cow-21-${i}.jpg`, b)),
        'Bò 21 lần nữa',
      );
      await page.click('form[name=enrol] button[type=submit]');
      await page.locator('button[name=add-to-existing]').waitFor({ timeout: 90_000 });
      await expectInView('button[name=enrol-anyway]');
      await expectFits();
      await shot('14-duplicate-warning');
      // Enrolled anyway (the owner thought it another cow), then merged back on the animal page.
      await page.click('button[name=enrol-anyway]');
      const second = await enrolled();
      await page.goto(`${app.url}/?visit=${++visits}#/animal/${encodeURIComponent(animals[21]!)}`);
      await page.check(`input[name=merge-from][value="${second}"]`);
      await page.click('form[name=merge] button[type=submit]');
      await page.click('button[name=merge-confirm]');
      await page.locator('.timeline li', { hasText: 'Gộp cá thể' }).waitFor({ timeout: 30_000 });
      const gone = await app.container.db.query<{ deleted_at: Date | null }>('select deleted_at from individuals where id = $1', [
        second.split(':').pop(),
      ]);
      expect(gone.rows[0]!.deleted_at).not.toBeNull();
    }, 180_000);

    it('from the duplicate warning, adds the photos to the animal already enrolled; a dark photo is kept when the owner says so', async () => {
      const before = await photosOf(animals[7]!);
      await enrolThroughApp(
        (await scenes(7, 5, 3)).map((b, i) => jpeg(`cow-7-new-${i}.jpg`, b)),
        'Bò 7 góc mới',
      );
      await page.click('form[name=enrol] button[type=submit]');
      await page.locator('button[name=add-to-existing]').waitFor({ timeout: 90_000 });
      await page.click('button[name=add-to-existing]');
      await page.getByText('Đã thêm ảnh.').waitFor({ timeout: 90_000 });
      expect(await photosOf(animals[7]!)).toBe(before + 3);
      // A new cow with one photo taken in the dark: a warning on that thumbnail, kept on request.
      const [first, ...rest] = await scenes(33, 1, 3);
      const dark = await sharp(first!).linear(0.03, 0).jpeg().toBuffer();
      await enrolThroughApp([jpeg('dark.jpg', dark), ...rest.map((b, i) => jpeg(`cow-33-${i}.jpg`, b))], 'Bò 33');
      await page.click('form[name=enrol] button[type=submit]');
      await page.locator('figure.thumb.warned[data-index="0"] .mark', { hasText: 'quá tối' }).waitFor({ timeout: 60_000 });
      expect(await page.locator('figure.thumb.refused').count()).toBe(0);
      await page.click('button[name=keep-anyway]');
      expect(await photosOf(await enrolled())).toBe(3);
    }, 240_000);

    it("adds a vaccination from the app to the animal's timeline", async () => {
      await page.goto(`${app.url}/?visit=${++visits}#/animal/${encodeURIComponent(animals[7]!)}`);
      await page.selectOption('select[name=event-type]', 'vaccination');
      await page.fill('input[name=event-note]', 'Lở mồm long móng');
      await page.click('form[name=add-event] button[type=submit]');
      await page.locator('.timeline li', { hasText: 'Tiêm phòng · Lở mồm long móng' }).waitFor({ timeout: 30_000 });
      await shot('15-event-added');
    }, 60_000);

    // The test's own `expect`: in a concurrent suite the global one may have lost its test (the
    // other size's test ended meanwhile), and expect.poll refuses to run without one.
    it('on the animal page, a photo refused only with a warning is kept when the owner says so', async ({ expect }) => {
      const before = await photosOf(animals[7]!);
      await page.goto(`${app.url}/?visit=${++visits}#/animal/${encodeURIComponent(animals[7]!)}`);
      await page.locator('form[name=add-photos]').waitFor();
      const dark = await sharp((await scenes(7, 40, 1))[0]!)
        .linear(0.03, 0)
        .jpeg()
        .toBuffer();
      await page.setInputFiles('input[name=add-photos]', [jpeg('dark-7.jpg', dark)]);
      await page.click('form[name=add-photos] button[type=submit]');
      await page.locator('form[name=add-photos] button[name=keep-anyway]').waitFor({ timeout: 60_000 });
      await expectInView('form[name=add-photos] button[name=keep-anyway]');
      expect(await photosOf(animals[7]!)).toBe(before);
      await page.click('form[name=add-photos] button[name=keep-anyway]');
      await expect.poll(() => photosOf(animals[7]!), { timeout: 60_000 }).toBe(before + 1);
    }, 120_000);

    it('keeps a photo taken offline and uploads it, once, when the network returns', async () => {
      const before = await photosOf(animals[7]!);
      await page.goto(`${app.url}/?visit=${++visits}#/animal/${encodeURIComponent(animals[7]!)}`);
      await page.locator('form[name=add-photos]').waitFor();
      await ctx.setOffline(true);
      await page.setInputFiles('input[name=add-photos]', [jpeg('offline.jpg', (await scenes(7, 30, 1))[0]!)]);
      await page.click('form[name=add-photos] button[type=submit]');
      await page.locator('.offline-queue', { hasText: '1 yêu cầu đang chờ mạng' }).waitFor();
      await expectInView('.offline-queue');
      await expectFits();
      await shot('16-offline-queued');
      // The shell still opens without network (service worker cache).
      await page.reload();
      await page.locator('.offline-queue', { hasText: '1 yêu cầu đang chờ mạng' }).waitFor();
      await ctx.setOffline(false);
      await page.evaluate('window.dispatchEvent(new Event("online"))');
      await page.locator('.offline-queue', { hasText: 'Đã gửi 1 yêu cầu chờ.' }).waitFor({ timeout: 60_000 });
      expect(await photosOf(animals[7]!)).toBe(before + 1);
    }, 120_000);
  });
});
