import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/postgres.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { detectableShots } from '../support/animal-shots.js';

/** The animal pages in a real browser (Debian's chromium): sign in, enrol, identify, see candidates with their photos. */

let app: TestApp;
let browser: Browser;
let dir: string;
const files: string[] = [];

beforeAll(async () => {
  app = await startTestApp({ mode: 'embedded' });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  dir = await mkdtemp(path.join(os.tmpdir(), 'animal-pages-'));
  for (const [i, shot] of (await detectableShots(704, 4)).entries()) {
    files.push(path.join(dir, `shot-${i}.jpg`));
    await writeFile(files[i]!, shot.photo);
  }
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('animal HTML pages', () => {
  it('serves both pages under both prefixes, with a CSP that pins the one inline script', async () => {
    for (const p of ['/api/animal/field', '/animal/field', '/api/animal/demo', '/animal/demo']) {
      const r = await api(app.url, 'GET', p);
      expect(r.status, p).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(r.headers.get('content-security-policy')).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    }
    expect((await api(app.url, 'GET', '/api/animal/demo')).text).toContain('demo-farm');
  });

  it('enrols and identifies in the browser, showing candidates with their photos', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    // Every call the page makes must succeed (the browser's own favicon probe aside).
    page.on('response', (r) => r.status() >= 400 && !r.url().endsWith('/favicon.ico') && errors.push(`${r.status()} ${r.url()}`));
    await page.goto(`${app.url}/animal/demo`);
    const out = () => page.locator('#out').textContent();
    await page.fill('#user', uniqueName('web_'));
    await page.fill('#pass', 'Bark-and-peel-42');
    await page.click('[data-act=signup]');
    await expect.poll(out, { timeout: 30_000, message: errors.join('; ') }).toContain('"token"');
    await page.locator('#out').evaluate((e) => void ((e as unknown as { textContent: string }).textContent = ''));
    await page.click('[data-act=login]');
    await expect.poll(out, { timeout: 30_000 }).toContain('"token"');
    await page.selectOption('#species', 'elephant');
    await page.fill('#name', 'Voi Bông');
    await page.setInputFiles('#enPhotos', files.slice(0, 3));
    await page.click('[data-act=enroll]');
    await expect.poll(out, { timeout: 60_000 }).toContain('did:markless:animal:');
    await page.setInputFiles('#idPhoto', files[3]!);
    await page.click('[data-act=identify]');
    const card = page.locator('#cards .card').first();
    await card.waitFor({ timeout: 60_000 });
    expect(await card.textContent()).toContain('Voi Bông');
    // The candidate's enrolled photos load from /api/blobs with the session cookie.
    const img = card.locator('img').first();
    await expect
      .poll(() => img.evaluate((e) => (e as unknown as { complete: boolean; naturalWidth: number }).naturalWidth), { timeout: 20_000 })
      .toBeGreaterThan(0);
    await page.click('[data-act=list]');
    await expect.poll(out, { timeout: 30_000 }).toContain('"total": 1');
    expect(errors, errors.join('\n')).toEqual([]);
    await page.close();
  }, 120_000);
});
