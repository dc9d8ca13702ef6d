import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/postgres.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { ensureWebBuilt, launchChromium, signUpInApp } from '../support/browser.js';
import { screenshotPath } from '../support/screenshots.js';

/**
 * Issue 39, item 4: the app opened without signal. Every module is cached when the service worker
 * installs (before, only main.js was, and a first reload offline hung on "Đang tải…"); a signed-in
 * person reopens it offline on their last screen (before: the sign-in form); and once the network
 * is back the app carries on where it was, with the server's data. Nothing here recognises a
 * photo, so the service runs the deterministic engine (docs/testing.md).
 */
const SIZES = [
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true },
  { name: 'desktop', viewport: { width: 1280, height: 900 }, isMobile: false },
] as const;

describe('the field app without signal', () => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    ensureWebBuilt();
    app = await startTestApp({ engine: 'deterministic' });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  describe.each(SIZES)('at $name size', ({ name, viewport, isMobile }) => {
    let ctx: BrowserContext;
    let page: Page;
    const username = uniqueName('offline_').toLowerCase();
    const shot = async (p: Page, step: string) => {
      await p.evaluate('window.scrollTo(0, 0)');
      await p.screenshot({ path: screenshotPath(`${name}-offline-${step}.png`), fullPage: true });
    };

    beforeAll(async () => {
      ctx = await browser.newContext({ viewport, isMobile, hasTouch: isMobile, locale: 'vi-VN' });
      page = await ctx.newPage();
    });
    afterAll(() => ctx?.close());

    it('opens offline on the first reload, on the screen it was on, and carries on when the network is back', async () => {
      // First use: sign up, and the service worker installs (its cache filled before it is active).
      await signUpInApp(page, `${app.url}/`, username);
      await expect
        .poll(() => page.evaluate('navigator.serviceWorker.getRegistration().then((r) => Boolean(r && r.active))'), { timeout: 30_000 })
        .toBe(true);
      const cached = await page.evaluate<string[]>(
        'caches.keys().then((ks) => Promise.all(ks.map((k) => caches.open(k).then((c) => c.keys())))).then((ls) => ls.flat().map((r) => new URL(r.url).pathname))',
      );
      for (const f of ['/', '/app/main.js', '/app/api.js', '/app/view-survey.js', '/app/i18n-field.js', '/app/app.css'])
        expect(cached).toContain(f);

      // The last screen: the survey tab.
      await page.click('nav a[href="#/survey"]');
      await page.locator('form[name=survey]').waitFor();

      // No signal, and the page reloaded: the app, not "Đang tải…", on the same screen, as the same person.
      await ctx.setOffline(true);
      await page.reload();
      await page.locator('header .user', { hasText: username }).waitFor({ timeout: 15_000 });
      await page.locator('form[name=survey]').waitFor();
      await page.locator('.offline-mode').waitFor();
      expect(await page.locator('.offline-mode').innerText()).toContain('Không có mạng');
      // The species picker still lists the catalogue it last read.
      await expect.poll(() => page.locator('form[name=survey] select[name=species]').inputValue()).toBe('cattle');
      expect(await page.locator('input[name=password]').count()).toBe(0);
      await shot(page, 'reload');

      // Reopened offline from the home screen (the start URL, no route): the last screen again.
      const again = await ctx.newPage();
      await again.goto(`${app.url}/`);
      await again.locator('header .user', { hasText: username }).waitFor({ timeout: 15_000 });
      await again.locator('form[name=survey]').waitFor();
      expect(new URL(again.url()).hash).toBe('#/survey');
      await again.close();

      // The network is back: the same screen, online, the server's answers on it (its list of surveys).
      await ctx.setOffline(false);
      await page.evaluate('window.dispatchEvent(new Event("online"))');
      await page.locator('.offline-mode').waitFor({ state: 'detached', timeout: 20_000 });
      await page.locator('form[name=survey]').waitFor();
      await page.locator('header .user', { hasText: username }).waitFor();
      expect(new URL(page.url()).hash).toBe('#/survey');
      await shot(page, 'reconnected');

      // Signing out forgets the account on this device: offline, the next opening is the sign-in form.
      await page.click('button[name=signout]');
      await page.locator('input[name=password]').waitFor();
      await ctx.setOffline(true);
      await page.reload();
      await page.locator('input[name=password]').waitFor({ timeout: 15_000 });
      await page.locator('.offline-mode').waitFor();
      await ctx.setOffline(false);
    }, 120_000);
  });
});
