import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import QRCode from 'qrcode';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { ensureWebBuilt, launchChromium, newPage, signInInApp } from '../support/browser.js';
import { photoForm, textureImage } from '../support/images.js';
import { readQr, svgToPng } from '../support/qr.js';
import { screenshotPath } from '../support/screenshots.js';

/**
 * The printed label and the shopper's scan, in real Chromium at phone and desktop size: the
 * grower opens the label from the tree's page; a shopper with no account presses "Scan a code" on
 * `#/shop`, the live camera (Chromium's fake camera, playing a picture of the label) reads its QR
 * code and the tree's public page opens with the camera off; a QR code of another kind is a
 * sentence while the camera keeps looking, and Close or leaving the screen turn it off. Without a
 * camera the screen says why in one sentence and offers the photo picker: a photo with no code is
 * a sentence that leaves what the shopper typed in place, the label's photo opens the tree's page.
 */
const png = (name: string, buffer: Buffer) => ({ name, mimeType: 'image/png', buffer });
const jpeg = (name: string, buffer: Buffer) => ({ name, mimeType: 'image/jpeg', buffer });

/**
 * Records, in the page, the camera tracks the app opens and how many it stopped, in sessionStorage
 * too, so that the count survives the app leaving for the tree's page.
 */
const WATCH_TRACKS = `(() => {
  const md = navigator.mediaDevices;
  if (!md || !md.getUserMedia) return;
  const bump = (k, n) => sessionStorage.setItem(k, String(Number(sessionStorage.getItem(k) || 0) + n));
  const gum = md.getUserMedia.bind(md);
  window.__tracks = [];
  md.getUserMedia = async (c) => {
    const s = await gum(c);
    window.__tracks.push(...s.getTracks());
    bump('tracks-opened', s.getTracks().length);
    return s;
  };
  const stop = MediaStreamTrack.prototype.stop;
  MediaStreamTrack.prototype.stop = function () {
    if (this.readyState === 'live') bump('tracks-stopped', 1);
    return stop.call(this);
  };
})()`;
const trackStates = (page: Page): Promise<string[]> => page.evaluate('window.__tracks.map((t) => t.readyState)');

/** No camera for the app: the person refused it (phone), or the browser has no camera API (desktop). */
const NO_CAMERA = {
  phone: `navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('Permission denied', 'NotAllowedError'));`,
  desktop: `Object.defineProperty(Navigator.prototype, 'mediaDevices', { get: () => undefined });`,
} as const;

/**
 * Chromium's switches for a fake camera that plays `picture` (placed on white in a 640×480 frame,
 * as a phone held up to a label sees it), written as a Y4M video under `dir`.
 */
async function fakeCamera(picture: Buffer, dir: string, name: string): Promise<{ args: string[]; frame: Buffer }> {
  const frame = await sharp(picture)
    .resize({ width: 640, height: 480, fit: 'contain', background: '#fff' })
    .flatten({ background: '#fff' })
    .png()
    .toBuffer();
  const still = path.join(dir, `${name}.png`);
  const video = path.join(dir, `${name}.y4m`);
  await writeFile(still, frame);
  execFileSync('/usr/bin/ffmpeg', [
    '-loglevel',
    'error',
    '-y',
    '-loop',
    '1',
    '-i',
    still,
    '-t',
    '1',
    '-r',
    '10',
    '-pix_fmt',
    'yuv420p',
    video,
  ]);
  return {
    args: ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${video}`],
    frame,
  };
}

/** A photo of a label (PNG): the label, smaller than the frame, on a bark-like background. */
async function photoOfLabel(label: Buffer): Promise<Buffer> {
  const background = await textureImage(5301, 1000);
  const placed = await sharp(label).resize({ width: 420 }).toBuffer();
  return sharp(background)
    .composite([{ input: placed, left: 290, top: 170 }])
    .png()
    .toBuffer();
}

describe("the printed label's QR code, scanned on the shopper's screen", () => {
  let app: TestApp;
  /** Its fake camera shows the label; `otherCamera`'s a QR code of an advert. */
  let browser: Browser;
  let otherCamera: Browser;
  let dir: string;
  let grower: { token: string; username: string; id: string };
  let tree: { id: string; code: string };
  let labelPhoto: Buffer;

  beforeAll(async () => {
    ensureWebBuilt('web/dist/qr-scan.js');
    app = await startTestApp({ engine: 'deterministic' });
    grower = await signup(app.url, 'labelweb');
    const photos = await Promise.all([0, 1].map((i) => textureImage(5310 + i, 320)));
    const r = await api(app.url, 'POST', '/api/enroll', {
      token: grower.token,
      body: photoForm(photos, { species: 'durian', name: 'Cây có tem', lat: '10.03', lon: '105.78' }),
    });
    expect(r.status, r.text).toBe(200);
    tree = { id: r.json.tree_id, code: r.json.code };
    expect((await api(app.url, 'POST', `/api/tree/${tree.id}/publish`, { token: grower.token, form: {} })).status).toBe(200);
    const label = await api(app.url, 'GET', `/t/${tree.code}/label.svg`);
    expect(label.status).toBe(200);
    const labelPng = await svgToPng(label.text);
    labelPhoto = await photoOfLabel(labelPng);
    // The photo and the camera's frame hold what the label promises, read outside the browser too.
    expect(await readQr(labelPhoto)).toBe(`${app.url}/t/${tree.code}`);
    dir = await mkdtemp(path.join(os.tmpdir(), 'markless-camera-'));
    const labelCamera = await fakeCamera(labelPng, dir, 'label');
    expect(await readQr(labelCamera.frame)).toBe(`${app.url}/t/${tree.code}`);
    const advertCamera = await fakeCamera(await QRCode.toBuffer('https://example.org/khuyen-mai', { width: 400 }), dir, 'advert');
    browser = await launchChromium(labelCamera.args);
    otherCamera = await launchChromium(advertCamera.args);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await otherCamera?.close();
    await app?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('serves the decoder as a module of the app, and the service worker caches it with the rest', async () => {
    const lib = await api(app.url, 'GET', '/app/jsqr.js');
    expect(lib.status).toBe(200);
    expect(lib.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(lib.text).toContain('Apache License 2.0');
    const { ctx, page } = await newPage(browser, 'phone');
    try {
      await page.goto(`${app.url}/#/shop`);
      await expect
        .poll(() => page.evaluate('navigator.serviceWorker.getRegistration().then((r) => Boolean(r && r.active))'), { timeout: 30_000 })
        .toBe(true);
      const cached = await page.evaluate<string[]>(
        'caches.keys().then((ks) => Promise.all(ks.map((k) => caches.open(k).then((c) => c.keys())))).then((ls) => ls.flat().map((r) => new URL(r.url).pathname))',
      );
      expect(cached).toEqual(expect.arrayContaining(['/app/jsqr.js', '/app/qr-scan.js', '/app/view-shop.js']));
    } finally {
      await ctx.close();
    }
  });

  it("phone: the tree's page offers the printable label of its code", async () => {
    const { ctx, page } = await newPage(browser, 'phone');
    try {
      await signInInApp(page, app.url, grower);
      await page.goto(`${app.url}/#/tree/${tree.id}`);
      const link = page.locator('a[name=print-label]');
      await link.waitFor();
      expect((await link.textContent())?.trim()).toBe('In nhãn');
      expect(await link.getAttribute('href')).toBe(`/t/${encodeURIComponent(tree.code)}/label.svg`);
      await page.screenshot({ path: screenshotPath('phone-50-tree-print-label.png'), fullPage: true });
      // It opens in a tab of its own, ready to print.
      const [opened, res] = await Promise.all([
        ctx.waitForEvent('page'),
        ctx.waitForEvent('response', (r) => r.url().endsWith('/label.svg')),
        link.click(),
      ]);
      expect(opened.url()).toBe(`${app.url}/t/${encodeURIComponent(tree.code)}/label.svg`);
      expect(res.status()).toBe(200);
      expect(res.headers()['content-type']).toMatch(/^image\/svg\+xml/);
      expect(await res.text()).toContain(tree.code);

      // Private again: the code opens nothing, so no label is offered, and the page says why.
      await page.locator('.publish button', { hasText: /^Ẩn$/ }).click();
      await page.locator('.publish .hint').waitFor();
      expect(await page.locator('a[name=print-label]').count()).toBe(0);
      expect(await page.locator('.publish .hint').textContent()).toContain('để in nhãn');
      expect((await api(app.url, 'POST', `/api/tree/${tree.id}/publish`, { token: grower.token, form: {} })).status).toBe(200);
    } finally {
      await ctx.close();
    }
  });

  it('desktop: a QR code holding the bare code opens its page too', async () => {
    const { ctx, page } = await newPage(browser, 'desktop');
    try {
      await page.goto(`${app.url}/#/shop`);
      await page.locator('form[name=shop-code]').waitFor();
      const bare = await QRCode.toBuffer(tree.code, { width: 300 });
      await Promise.all([
        page.waitForURL(`**/t/${encodeURIComponent(tree.code)}`, { timeout: 30_000 }),
        page.setInputFiles('form[name=shop-code] input[name=scan-photo]', [png('bare.png', bare)]),
      ]);
    } finally {
      await ctx.close();
    }
  });

  for (const size of ['phone', 'desktop'] as const) {
    it(`${size}: without a camera, a sentence says so and offers the photo picker: a photo with no code is a sentence that keeps the typed code; the label's photo opens the tree's page`, async () => {
      const { ctx, page } = await newPage(browser, size);
      try {
        await page.addInitScript(NO_CAMERA[size]);
        await page.goto(`${app.url}/#/shop`);
        await page.locator('form[name=shop-code]').waitFor();
        const english = size === 'desktop';
        if (english) {
          await page.click('button[name=lang]');
          await page.locator('form[name=shop-code]').waitFor();
        }
        const scanButton = page.locator('form[name=shop-code] button[name=scan]');
        expect((await scanButton.textContent())?.trim()).toBe(english ? 'Scan a code' : 'Quét mã');
        await page.fill('form[name=shop-code] input[name=code]', 'MKL-typed-by-hand');

        // No camera: one sentence saying why, and the photo picker instead.
        await scanButton.click();
        const why = page.locator('.shop-answer .notice.warn');
        await why.waitFor();
        expect((await why.textContent())?.trim()).toBe(
          english
            ? 'This browser cannot open the camera to scan; choose a photo of the QR code on the label instead.'
            : 'Máy ảnh không được phép dùng; hãy cho phép trong cài đặt của trình duyệt, hoặc chọn ảnh chụp mã QR trên tem.',
        );
        expect(await page.locator('video').count()).toBe(0);
        const choose = page.locator('.shop-answer button[name=choose-photo]');
        expect((await choose.textContent())?.trim()).toBe(english ? 'Choose a photo' : 'Chọn ảnh');
        await page.screenshot({ path: screenshotPath(`${size}-50-shop-scan-no-camera.png`), fullPage: true });

        // A bark photo: no QR code in it.
        const [chooser] = await Promise.all([page.waitForEvent('filechooser'), choose.click()]);
        expect(await chooser.element().getAttribute('capture')).toBe('environment');
        await chooser.setFiles([jpeg('bark.jpg', await textureImage(5320, 800))]);
        const none = page.locator('.shop-answer .notice.error');
        await none.waitFor({ timeout: 30_000 });
        expect((await none.textContent())?.trim()).toBe(
          english
            ? 'No traceability code was found in this photo; take it again closer and sharper, or type the code printed on the label.'
            : 'Không tìm thấy mã truy xuất nào trong ảnh này; hãy chụp lại gần và rõ hơn, hoặc nhập mã in trên tem.',
        );
        expect(await page.inputValue('form[name=shop-code] input[name=code]')).toBe('MKL-typed-by-hand');
        expect(page.url()).toBe(`${app.url}/#/shop`);
        await page.screenshot({ path: screenshotPath(`${size}-50-shop-scan-none.png`), fullPage: true });

        // A QR code of some other address (an advert, a shop's site): no code in it either.
        const sentence = (await none.textContent())?.trim();
        await page.evaluate("document.querySelector('.shop-answer').replaceChildren()");
        const advert = await QRCode.toBuffer('https://example.org/khuyen-mai', { width: 400 });
        await page.setInputFiles('form[name=shop-code] input[name=scan-photo]', [png('advert.png', advert)]);
        await none.waitFor({ timeout: 30_000 });
        expect((await none.textContent())?.trim()).toBe(sentence);
        expect(await page.inputValue('form[name=shop-code] input[name=code]')).toBe('MKL-typed-by-hand');

        // The label's photo: its code's public page, as typing the code opens it.
        await Promise.all([
          page.waitForURL(`**/t/${encodeURIComponent(tree.code)}`, { timeout: 30_000 }),
          page.setInputFiles('form[name=shop-code] input[name=scan-photo]', [png('label.png', labelPhoto)]),
        ]);
        await expect.poll(async () => (await page.locator('body').textContent()) ?? '', { timeout: 30_000 }).toContain(tree.code);
        await page.screenshot({ path: screenshotPath(`${size}-50-shop-scan-opened.png`), fullPage: true });
      } finally {
        await ctx.close();
      }
    });
  }

  for (const size of ['phone', 'desktop'] as const) {
    it(`${size}: "Scan a code" reads the label from the live camera and opens the tree's page with every camera track stopped`, async () => {
      const { ctx, page } = await newPage(browser, size);
      try {
        await page.addInitScript(WATCH_TRACKS);
        await page.goto(`${app.url}/#/shop`);
        await page.locator('form[name=shop-code]').waitFor();
        await Promise.all([
          page.waitForURL(`**/t/${encodeURIComponent(tree.code)}`, { timeout: 30_000 }),
          page.locator('form[name=shop-code] button[name=scan]').click(),
        ]);
        await expect.poll(async () => (await page.locator('body').textContent()) ?? '', { timeout: 30_000 }).toContain(tree.code);
        // Every track the app opened was stopped before it left.
        const count = (k: string) => page.evaluate<number>(`Number(sessionStorage.getItem(${JSON.stringify(k)}))`);
        expect(await count('tracks-opened')).toBeGreaterThan(0);
        expect(await count('tracks-stopped')).toBe(await count('tracks-opened'));
      } finally {
        await ctx.close();
      }
    });
  }

  it('phone: a QR code of another kind is a sentence while the camera keeps looking; Close and leaving the screen turn the camera off', async () => {
    const { ctx, page } = await newPage(otherCamera, 'phone');
    try {
      await page.addInitScript(WATCH_TRACKS);
      await page.goto(`${app.url}/#/shop`);
      await page.locator('form[name=shop-code]').waitFor();
      await page.fill('form[name=shop-code] input[name=code]', 'MKL-typed-by-hand');
      const scanButton = page.locator('form[name=shop-code] button[name=scan]');
      await scanButton.click();
      const video = page.locator('.shop-camera video');
      await video.waitFor();
      const other = page.locator('.shop-camera .notice.warn');
      await other.waitFor({ timeout: 30_000 });
      expect((await other.textContent())?.trim()).toBe(
        'Mã QR này không chứa mã truy xuất; hãy hướng máy ảnh vào mã QR trên tem, hoặc nhập mã in trên tem.',
      );
      // Still looking: the camera runs, shown in a frame that fits the phone's screen.
      expect(await trackStates(page)).toEqual(['live']);
      expect(await page.evaluate<number>("document.querySelector('.shop-camera video').videoWidth")).toBeGreaterThan(0);
      const box = await video.boundingBox();
      expect(box && box.width > 200 && box.x >= 0 && box.x + box.width <= 390).toBe(true);
      expect(page.url()).toBe(`${app.url}/#/shop`);
      await page.screenshot({ path: screenshotPath('phone-50-shop-scan-camera.png'), fullPage: true });

      const close = page.locator('.shop-camera button[name=close-camera]');
      expect((await close.textContent())?.trim()).toBe('Đóng');
      await close.click();
      expect(await page.locator('video').count()).toBe(0);
      expect(await trackStates(page)).toEqual(['ended']);
      expect(await page.inputValue('form[name=shop-code] input[name=code]')).toBe('MKL-typed-by-hand');

      // Open again, then leave for another screen: the camera stops with it.
      await scanButton.click();
      await video.waitFor();
      await expect.poll(() => trackStates(page)).toEqual(['ended', 'live']);
      await page.evaluate("location.hash = '#/identify'");
      await expect.poll(() => trackStates(page)).toEqual(['ended', 'ended']);
      expect(await page.locator('video').count()).toBe(0);
    } finally {
      await ctx.close();
    }
  });
});
