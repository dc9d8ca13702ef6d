/**
 * Issue 39: a fruit is renamed on its page in the app, at phone size (390×844) in real Chromium.
 * The page's rename form (the one the tree and animal pages use) sends POST /api/rename with the
 * fruit's id; the heading takes the cleaned name the server answers, a name with nothing left
 * after cleaning is refused with a sentence and the heading stays, and the fruit list shows the
 * new name. The deterministic engine: nothing here is about recognition.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { photoForm, textureImage } from '../support/images.js';
import { screenshotPath } from '../support/screenshots.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('renaming a fruit on its page (phone, Chromium)', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let owner: { token: string; username: string };
  let fruitId: string;

  beforeAll(async () => {
    if (!existsSync('web/dist/view-entity.js')) execFileSync(process.execPath, ['web/build.mjs'], { stdio: 'inherit' });
    app = await startTestApp({ engine: 'deterministic' });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    owner = await signup(app.url, 'packer_rename');
    const e = await api(app.url, 'POST', '/api/fruit/enroll', {
      token: owner.token,
      body: photoForm([await textureImage(6301, 320)], { species: 'apple', farm_id: 'kho-1', name: 'Táo số 1' }),
    });
    expect(e.status, e.text).toBe(200);
    fruitId = e.json.fruit_id;
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'vi-VN' });
    page = await ctx.newPage();
    await page.goto(app.url);
    await page.fill('input[name=username]', owner.username);
    await page.fill('input[name=password]', 'Bark-and-peel-42');
    await page.click('button[name=login]');
    await page.locator('nav').waitFor({ timeout: 30_000 });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('renames the fruit: the heading takes the cleaned name, an empty name is refused in a sentence, the list shows the new name', async () => {
    await page.goto(`${app.url}/#/fruit/${fruitId}`);
    const form = page.locator('form[name=rename]');
    await form.waitFor({ timeout: 30_000 });
    const heading = page.locator('section.card h2').first();
    expect(await heading.textContent()).toBe('Táo số 1');
    expect(await form.locator('input[name=name]').inputValue()).toBe('Táo số 1');
    expect(await form.locator('label').first().textContent()).toContain('Đổi tên');

    // Markup and doubled spaces are cleaned by the server; the heading shows what it kept.
    await form.locator('input[name=name]').fill('<b>Táo Fuji</b>   lô 7');
    await form.locator('button[type=submit]').click();
    await form.locator('.notice.ok').waitFor({ timeout: 30_000 });
    expect(await heading.textContent()).toBe('Táo Fuji lô 7');
    expect(await form.locator('input[name=name]').inputValue()).toBe('Táo Fuji lô 7');
    const stored = await api(app.url, 'GET', `/api/fruit?fruit_id=${fruitId}`, { token: owner.token });
    expect(stored.json.fruit[0].name).toBe('Táo Fuji lô 7');
    await page.screenshot({ path: screenshotPath('phone-39-fruit-rename.png'), fullPage: true });

    // Nothing left after cleaning: a sentence in Vietnamese, and the old name stays.
    await form.locator('input[name=name]').fill('<br>  ');
    await form.locator('button[type=submit]').click();
    const refused = form.locator('.notice.error');
    await refused.waitFor({ timeout: 30_000 });
    expect(await refused.textContent()).toMatch(/Tên mới .*\./);
    expect(await heading.textContent()).toBe('Táo Fuji lô 7');

    // The fruit list names it by its new name, and the page reopened keeps it.
    await page.goto(`${app.url}/#/fruits`);
    await page.getByText('Táo Fuji lô 7').first().waitFor({ timeout: 30_000 });
    await page.goto(`${app.url}/#/fruit/${fruitId}`);
    await page.locator('form[name=rename]').waitFor({ timeout: 30_000 });
    expect(await page.locator('section.card h2').first().textContent()).toBe('Táo Fuji lô 7');
  }, 120_000);
});
