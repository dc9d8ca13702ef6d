/**
 * The field app for a herd owner (issue 24), in Chromium at phone and desktop size: `/` serves
 * the app; a coat close-up with no detectable animal enrols; identify shows several candidates
 * with match lines; "this one" adds the photo and the timeline shows it; "none of these" enrols a
 * new animal keeping the photo; the duplicate warning, adding the photos to the animal it names,
 * and a merge; a dark photo kept on the owner's say-so; an event added from the app;
 * a photo taken offline is uploaded when the network returns. Screenshots go to docs/screenshots.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/postgres.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { textureImage } from '../support/images.js';
import { animalScene } from '../../workers/src/vision/testing/animal-scene.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve('docs/screenshots');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const jpeg = (name: string, buffer: Buffer) => ({ name, mimeType: 'image/jpeg', buffer });
const scenes = (coat: number, from: number, n: number) => Promise.all(Array.from({ length: n }, (_, i) => animalScene({ coat, shot: from + i, dx: (i - 1) * 25 })));

async function shot(page: Page, name: string, desktop = false) {
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(SHOTS, `phone-${name}.png`), fullPage: true });
  if (!desktop) return;
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: path.join(SHOTS, `desktop-${name}.png`), fullPage: true });
  await page.setViewportSize(PHONE);
}

/** Nothing on the page is wider than the phone (a long file name once widened it to 473 px). */
const pageWidth = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth');

describe('the herd owner\'s field app in Chromium', () => {
  let app: TestApp;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  const username = uniqueName('herd_').toLowerCase();
  const animals: Record<string, string> = {};
  let visits = 0;

  async function enrolThroughApp(files: { name: string; mimeType: string; buffer: Buffer }[], name: string) {
    // A fresh page each time (a hash-only navigation would keep the previous form's photos).
    await page.goto(`${app.url}/?visit=${++visits}#/enrol/animal`);
    await page.locator('select[name=species] option[value=cattle]').waitFor({ state: 'attached' });
    await page.setInputFiles('form[name=enrol] input[type=file]', files);
    await page.selectOption('select[name=species]', 'cattle');
    await page.fill('input[name=name]', name);
  }

  beforeAll(async () => {
    if (!existsSync('web/dist/sw.js')) execFileSync(process.execPath, ['web/build.mjs'], { stdio: 'inherit' });
    mkdirSync(SHOTS, { recursive: true });
    app = await startTestApp();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    ctx = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, locale: 'vi-VN' });
    page = await ctx.newPage();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

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
    await page.fill('input[name=username]', username);
    await page.fill('input[name=password]', 'Coat-and-muzzle-42');
    await page.click('button[name=signup]');
    await page.locator('header .user', { hasText: username }).waitFor();
    await expect.poll(() => page.evaluate('navigator.serviceWorker.getRegistration().then((r) => Boolean(r && r.active))'), { timeout: 30_000 }).toBe(true);
  }, 60_000);

  it('enrols a cow from coat close-ups the detector finds no animal in, farm remembered next time', async () => {
    const closeUps = await Promise.all([2402, 2403, 2404].map(async (s, i) => jpeg(`a-very-long-file-name-from-the-phone-camera-IMG_2024_0${i}.jpg`, await textureImage(s, 480))));
    await enrolThroughApp(closeUps, 'Bò Sữa 1');
    await page.fill('input[name=farm_id]', 'trai-bo');
    await shot(page, '10-enrol-close-up');
    await page.click('form[name=enrol] button[type=submit]');
    await page.getByText('Đã đăng ký.').waitFor({ timeout: 90_000 });
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    const href = await page.locator('.notice.ok a').getAttribute('href');
    animals.closeUp = decodeURIComponent(href!.replace('#/animal/', ''));
    const subj = await app.container.db.query<{ subject: unknown }>('select d.subject from descriptors d join images i on i.id = d.image_id where i.individual_id = $1', [animals.closeUp.split(':').pop()]);
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
    await shot(page, '11-enrol-refused');
  }, 90_000);

  it('identify shows several candidates with match lines; "this one" adds the photo and the timeline shows it', async () => {
    for (const coat of [7, 21]) {
      await enrolThroughApp((await scenes(coat, 1, 3)).map((b, i) => jpeg(`cow-${coat}-${i}.jpg`, b)), `Bò ${coat}`);
      await page.click('form[name=enrol] button[type=submit]');
      await page.getByText('Đã đăng ký.').waitFor({ timeout: 90_000 });
      animals[coat] = decodeURIComponent((await page.locator('.notice.ok a').getAttribute('href'))!.replace('#/animal/', ''));
      // The detector's box is drawn on every photo it found the animal in, and only there.
      const found = await app.container.db.query<{ n: number }>('select count(*)::int as n from descriptors d join images i on i.id = d.image_id where i.individual_id = $1 and d.subject is not null', [animals[coat]!.split(':').pop()]);
      expect(found.rows[0]!.n).toBeGreaterThan(0);
      expect(await page.locator('.enrolled .subject-box').count()).toBe(found.rows[0]!.n);
      expect(await page.locator('.enrolled figure .mark').count()).toBe(3 - found.rows[0]!.n);
      if (coat === 7) await shot(page, '23-enrolled-boxes');
    }
    await page.goto(`${app.url}/?visit=${++visits}#/identify`);
    await page.click('fieldset.segmented input[value=animal]');
    const [q] = await scenes(7, 9, 1);
    await page.setInputFiles('form[name=identify] input[type=file]', [jpeg('query.jpg', q!)]);
    await page.click('form[name=identify] button[type=submit]');
    await page.locator('article.candidate').nth(2).waitFor({ timeout: 90_000 });
    expect(await page.locator('article.candidate').count()).toBe(3);
    expect(await page.locator('article.candidate canvas.match-lines').count()).toBe(3);
    // The lines are drawn: the first candidate's caption names the matched points.
    expect(Number((await page.locator('article.candidate').first().locator('figcaption').innerText()).match(/\d+/)![0])).toBeGreaterThan(8);
    await page.waitForTimeout(0);
    await shot(page, '12-review', true);
    await page.locator('article.candidate').first().locator('button[name=this-one]').click();
    await page.getByText('Đã xác nhận; ảnh đã được thêm vào con này.').waitFor({ timeout: 60_000 });
    await page.locator('.chosen a.button').click();
    await page.locator('.timeline li', { hasText: 'Nhận dạng đã xác nhận' }).waitFor();
    expect(await page.locator('h3', { hasText: 'Ảnh (4)' }).count()).toBe(1);
    expect(await page.locator('.meta', { hasText: 'Bò' }).count()).toBeGreaterThan(0);
    await shot(page, '13-animal-page', true);
  }, 240_000);

  it('"none of these" enrols a new animal keeping the photo', async () => {
    await page.goto(`${app.url}/?visit=${++visits}#/identify`);
    await page.click('fieldset.segmented input[value=animal]');
    const [q, ...more] = await scenes(49, 1, 3);
    await page.setInputFiles('form[name=identify] input[type=file]', [jpeg('newcomer.jpg', q!)]);
    await page.click('form[name=identify] button[type=submit]');
    await page.locator('button[name=none-enrol-new]').click({ timeout: 90_000 });
    await page.locator('.kept-photo').waitFor();
    await page.locator('select[name=species] option[value=cattle]').waitFor({ state: 'attached' });
    await page.setInputFiles('form[name=enrol] input[type=file]', more.map((b, i) => jpeg(`more-${i}.jpg`, b)));
    await page.selectOption('select[name=species]', 'cattle');
    await page.fill('input[name=name]', 'Bò mới');
    await page.click('form[name=enrol] button[type=submit]');
    await page.getByText('Đã đăng ký.').waitFor({ timeout: 90_000 });
    const did = decodeURIComponent((await page.locator('.notice.ok a').getAttribute('href'))!.replace('#/animal/', ''));
    const n = await app.container.db.query<{ n: number }>('select count(*)::int as n from images where individual_id = $1', [did.split(':').pop()]);
    expect(n.rows[0]!.n).toBe(3);
  }, 180_000);

  it('warns before enrolling photos already enrolled, and merges two animals from the animal page', async () => {
    await enrolThroughApp((await scenes(21, 1, 3)).map((b, i) => jpeg(`cow-21-${i}.jpg`, b)), 'Bò 21 lần nữa');
    await page.click('form[name=enrol] button[type=submit]');
    await page.locator('button[name=add-to-existing]').waitFor({ timeout: 90_000 });
    await shot(page, '14-duplicate-warning');
    // Enrolled anyway (the owner thought it another cow), then merged back on the animal page.
    await page.click('button[name=enrol-anyway]');
    await page.getByText('Đã đăng ký.').waitFor({ timeout: 90_000 });
    const second = decodeURIComponent((await page.locator('.notice.ok a').getAttribute('href'))!.replace('#/animal/', ''));
    await page.goto(`${app.url}/#/animal/${encodeURIComponent(animals[21]!)}`);
    await page.locator('select[name=merge-from]').selectOption(second);
    page.once('dialog', (d) => void d.accept());
    await page.click('form[name=merge] button[type=submit]');
    await page.locator('.timeline li', { hasText: 'Gộp cá thể' }).waitFor({ timeout: 30_000 });
    const gone = await app.container.db.query<{ deleted_at: Date | null }>('select deleted_at from individuals where id = $1', [second.split(':').pop()]);
    expect(gone.rows[0]!.deleted_at).not.toBeNull();
  }, 180_000);

  it('from the duplicate warning, adds the photos to the animal already enrolled; a dark photo is kept when the owner says so', async () => {
    const photosOf = async (did: string) => (await app.container.db.query<{ n: number }>('select count(*)::int as n from images where individual_id = $1', [did.split(':').pop()])).rows[0]!.n;
    const before = await photosOf(animals[7]!);
    await enrolThroughApp((await scenes(7, 5, 3)).map((b, i) => jpeg(`cow-7-new-${i}.jpg`, b)), 'Bò 7 góc mới');
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
    await page.getByText('Đã đăng ký.').waitFor({ timeout: 90_000 });
    const did = decodeURIComponent((await page.locator('.notice.ok a').getAttribute('href'))!.replace('#/animal/', ''));
    expect(await photosOf(did)).toBe(3);
  }, 240_000);

  it('adds a vaccination from the app to the animal\'s timeline', async () => {
    await page.goto(`${app.url}/#/animal/${encodeURIComponent(animals[7]!)}`);
    await page.selectOption('select[name=event-type]', 'vaccination');
    await page.fill('input[name=event-note]', 'Lở mồm long móng');
    await page.click('form[name=add-event] button[type=submit]');
    await page.locator('.timeline li', { hasText: 'Tiêm phòng · Lở mồm long móng' }).waitFor({ timeout: 30_000 });
    await shot(page, '15-event-added');
  }, 60_000);

  it('keeps a photo taken offline and uploads it, once, when the network returns', async () => {
    const before = (await app.container.db.query<{ n: number }>(`select count(*)::int as n from images where individual_id = $1`, [animals[7]!.split(':').pop()])).rows[0]!.n;
    await page.goto(`${app.url}/#/animal/${encodeURIComponent(animals[7]!)}`);
    await page.locator('form[name=add-photos]').waitFor();
    await ctx.setOffline(true);
    await page.setInputFiles('input[name=add-photos]', [jpeg('offline.jpg', (await scenes(7, 30, 1))[0]!)]);
    await page.click('form[name=add-photos] button[type=submit]');
    await page.locator('.offline-queue', { hasText: '1 yêu cầu đang chờ mạng' }).waitFor();
    await shot(page, '16-offline-queued');
    // The shell still opens without network (service worker cache).
    await page.reload();
    await page.locator('.offline-queue', { hasText: '1 yêu cầu đang chờ mạng' }).waitFor();
    await ctx.setOffline(false);
    await page.evaluate('window.dispatchEvent(new Event("online"))');
    await page.locator('.offline-queue', { hasText: 'Đã gửi 1 yêu cầu chờ.' }).waitFor({ timeout: 60_000 });
    const after = (await app.container.db.query<{ n: number }>(`select count(*)::int as n from images where individual_id = $1`, [animals[7]!.split(':').pop()])).rows[0]!.n;
    expect(after).toBe(before + 1);
  }, 120_000);
});
