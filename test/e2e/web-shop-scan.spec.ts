import type { Browser, BrowserContext, Page } from 'playwright-core';
import QRCode from 'qrcode';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { ensureWebBuilt, launchChromium, signInInApp } from '../support/browser.js';
import { photoForm, textureImage } from '../support/images.js';
import { readQr, svgToPng } from '../support/qr.js';
import { screenshotPath } from '../support/screenshots.js';

/**
 * The printed label and the shopper's scan, in real Chromium at phone and desktop size: the
 * grower opens the label from the tree's page; a shopper with no account photographs its QR code
 * on `#/shop` and lands on the tree's public page, and a photo with no code in it is a sentence
 * that leaves what the shopper typed in place.
 */
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;
const png = (name: string, buffer: Buffer) => ({ name, mimeType: 'image/png', buffer });
const jpeg = (name: string, buffer: Buffer) => ({ name, mimeType: 'image/jpeg', buffer });

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
  let browser: Browser;
  let grower: { token: string; username: string; id: string };
  let tree: { id: string; code: string };
  let labelPhoto: Buffer;

  beforeAll(async () => {
    ensureWebBuilt('web/dist/qr-scan.js');
    app = await startTestApp({ engine: 'deterministic' });
    browser = await launchChromium();
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
    labelPhoto = await photoOfLabel(await svgToPng(label.text));
    // The photo holds what the label promises, read outside the browser too.
    expect(await readQr(labelPhoto)).toBe(`${app.url}/t/${tree.code}`);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  async function newPage(size: keyof typeof SIZES): Promise<{ ctx: BrowserContext; page: Page }> {
    const ctx = await browser.newContext({
      viewport: SIZES[size],
      isMobile: size === 'phone',
      hasTouch: size === 'phone',
      locale: 'vi-VN',
    });
    return { ctx, page: await ctx.newPage() };
  }

  it('serves the decoder as a module of the app, and the service worker caches it with the rest', async () => {
    const lib = await api(app.url, 'GET', '/app/jsqr.js');
    expect(lib.status).toBe(200);
    expect(lib.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(lib.text).toContain('Apache License 2.0');
    const { ctx, page } = await newPage('phone');
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
    const { ctx, page } = await newPage('phone');
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
    const { ctx, page } = await newPage('desktop');
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
    it(`${size}: a photo with no code is a sentence that keeps the typed code; the label's photo opens the tree's page`, async () => {
      const { ctx, page } = await newPage(size);
      try {
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

        // A bark photo: no QR code in it.
        const [chooser] = await Promise.all([page.waitForEvent('filechooser'), scanButton.click()]);
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
});
