import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectableShots } from '../support/animal-shots.js';
import { uniqueName } from '../support/postgres.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { herdClip } from '../../workers/src/survey/testing/herd-clip.js';
import { screenshotPath } from '../support/screenshots.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.resolve('test-artifacts/web');

describe('the survey page in a real browser', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  let clip: Buffer;

  beforeAll(async () => {
    if (!existsSync('web/dist/main.js')) execFileSync(process.execPath, ['web/build.mjs'], { stdio: 'inherit' });
    mkdirSync(ARTIFACTS, { recursive: true });
    app = await startTestApp();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' })).newPage();
    clip = await herdClip({
      frames: 30,
      animals: [
        { coat: 851, x: (f) => 40 + 6 * f },
        { coat: 859, x: (f) => 760 - 5 * f },
      ],
    });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('sends a video, shows the tracks as thumbnails with verdicts, and a confirmation becomes a label', async () => {
    await page.goto(`${app.url}/TreeIdentity`);
    await page.fill('input[name=username]', uniqueName('herder_').toLowerCase());
    await page.fill('input[name=password]', 'Bark-and-peel-42');
    await page.click('button[name=signup]');
    await page.locator('header .user').waitFor();
    // One animal of the clip is enrolled on the farm, through the API with this session's cookie.
    // A second cow of the farm is not in the clip: the one the survey lists as not seen.
    for (const [coat, name] of [
      [851, 'Bò Vàng'],
      [852, 'Bò Đốm'],
    ] as const) {
      const form = new FormData();
      for (const [k, v] of Object.entries({ species: 'cattle', farm_id: 'survey-farm', name })) form.append(k, v);
      for (const [k, s] of (await detectableShots(coat, 3)).entries())
        form.append('files', new Blob([new Uint8Array(s.photo)], { type: 'image/jpeg' }), `cow-${k}.jpg`);
      expect(
        (
          await page.request.post(`${app.url}/api/animal/enroll`, { multipart: form, headers: { origin: app.url }, timeout: 60_000 })
        ).status(),
      ).toBe(200);
    }

    await page.click('nav a[href="#/survey"]');
    // Species is picked from the catalogue (cattle by default), not typed.
    const species = page.locator('form[name=survey] select[name=species]');
    await expect.poll(() => species.inputValue()).toBe('cattle');
    // Every progress line the page shows, kept as it changes.
    await page.evaluate(`(() => {
      window.__progress = [];
      new MutationObserver(() => {
        const p = document.querySelector('.survey-progress');
        if (p && window.__progress.at(-1) !== p.textContent) window.__progress.push(p.textContent);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    await page.locator('form[name=survey] input[type=file]').setInputFiles({ name: 'pass.mp4', mimeType: 'video/mp4', buffer: clip });
    await page.fill('form[name=survey] input[name=farm_id]', 'survey-farm');
    await page.click('form[name=survey] button[type=submit]');
    await page.locator('ul.tracks li').nth(1).waitFor({ timeout: 120_000 });
    const list = await page.request.get(`${app.url}/api/surveys`);
    const id = (await list.json()).surveys[0].survey_id;
    const res = (await (await page.request.get(`${app.url}/api/survey/${id}`)).json()).result;
    expect(
      await page.locator('.stats b.big').first().innerText(),
      JSON.stringify(res.tracks.map((t: any) => [t.track, t.verdict, t.name, t.candidates])),
    ).toBe('2');
    expect(await page.locator('ul.tracks li img').count()).toBeGreaterThanOrEqual(2);
    const known = page.locator('ul.tracks li.match');
    expect(await known.innerText()).toContain('Bò Vàng');
    // The progress moved with the frames and then the tracks, in sentences.
    const seen = await page.evaluate<string[]>('window.__progress');
    expect(
      seen.some((x) => /(Read|Đã đọc) [1-9]\d* (of|trên) 30|(identifying: \d of|đang nhận dạng: xong \d trên) 2/.test(x)),
      JSON.stringify(seen),
    ).toBe(true);
    // The farm's cow that is not in the clip, never the one recognised: not seen when every head was
    // named, else not named, in a sentence that says an unrecognised head may be it.
    if (res.not_seen.length) {
      const warn = await page.locator('.notice.warn', { hasText: /not seen|Không thấy/ }).innerText();
      expect(warn).toContain('Bò Đốm');
      expect(warn).not.toContain('Bò Vàng');
    } else if (res.not_named.length) {
      expect(res.unknown.length).toBeGreaterThan(0);
      const warn = await page.locator('.notice.warn', { hasText: /not named|Chưa gọi được tên/ }).innerText();
      expect(warn).toContain('Bò Đốm');
      expect(warn).not.toContain('Bò Vàng');
      expect(warn).toMatch(/not recognised|chưa nhận ra/);
      expect(await page.locator('.stats .not_seen').count()).toBe(0);
    } else expect(res.maybe_seen.map((k: any) => k.name)).toEqual(['Bò Đốm']);
    await page.screenshot({ path: path.join(ARTIFACTS, 'survey-review.png'), fullPage: true });
    await page.screenshot({ path: screenshotPath('desktop-survey-review.png'), fullPage: true });

    // On a phone (390×844): nothing past the right edge, each counter's label on at most two
    // lines (it wrapped one letter a line), and every button as wide as its words.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    const counters = await page.evaluate<{ text: string; lines: number }[]>(`[...document.querySelectorAll('.stats div span')].map((e) => ({
      text: e.textContent, lines: Math.round(e.getBoundingClientRect().height / (parseFloat(getComputedStyle(e).lineHeight) || parseFloat(getComputedStyle(e).fontSize) * 1.2)) }))`);
    for (const l of counters) expect(l.lines, JSON.stringify(counters)).toBeLessThanOrEqual(2);
    const buttons = await page.evaluate<
      { text: string; width: number; height: number; fits: boolean }[]
    >(`[...document.querySelectorAll('ul.tracks button')].map((b) => ({
      text: b.textContent, width: b.getBoundingClientRect().width, height: b.getBoundingClientRect().height, fits: b.scrollWidth <= b.clientWidth + 1 }))`);
    expect(buttons.length).toBeGreaterThan(0);
    for (const b of buttons) {
      expect(b.fits, JSON.stringify(b)).toBe(true);
      expect(b.height, JSON.stringify(b)).toBeLessThanOrEqual(50);
    }
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: screenshotPath('phone-survey-review.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    await known.locator('button', { hasText: /Confirm|Đúng/ }).click();
    await page.locator('ul.tracks li.match', { hasText: '✓' }).waitFor();
    const labels = await app.container.db.query<{ verdict: string }>(
      `select v.verdict from identify_verdicts v join survey_tracks t on t.query_id = v.query_id where t.reviewed = 'confirmed'`,
    );
    expect(labels.rows.map((r) => r.verdict)).toEqual(['correct']);
  }, 240_000);

  it('follows a survey to its result when its progress stream is refused (a proxy, the stream limit)', async () => {
    await page.route('**/api/survey/*/events', (r) => r.abort());
    try {
      await page.goto(`${app.url}/?again=1#/survey`);
      await page.locator('form[name=survey] input[type=file]').setInputFiles({ name: 'pass.mp4', mimeType: 'video/mp4', buffer: clip });
      await page.fill('form[name=survey] input[name=farm_id]', 'survey-farm');
      await expect.poll(() => page.locator('form[name=survey] select[name=species]').inputValue()).toBe('cattle');
      await page.click('form[name=survey] button[type=submit]');
      // Before, the page stood on its first progress line for good; now it asks again until the result.
      await page.locator('ul.tracks li').nth(1).waitFor({ timeout: 120_000 });
      expect(await page.locator('.stats b.big').first().innerText()).toBe('2');
    } finally {
      await page.unroute('**/api/survey/*/events');
    }
  }, 180_000);
});
