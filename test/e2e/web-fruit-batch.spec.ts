import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { mixedViewsBatch, photoForm, textureImage } from '../support/images.js';
import { screenshotPath } from '../support/screenshots.js';

/**
 * Issue 39, items 5 and 6 in the app, at phone and desktop size in real Chromium:
 * - fruit is named: a name field and apple in the species picker at enrolment, the name (or a
 *   short code, never "(chưa đặt tên)" or a UUID) in the fruit list, a publish button on its page;
 * - a packing house reads every batch row without opening it (fruit, tree name and code,
 *   verdict), and decides an unsure row in the table ("this one" / "none of these"), a label on
 *   the row's answer that the table and the CSV then show.
 *
 * The real engine: the batch needs rows the engine is unsure of (two fruit's photos sent as one
 * fruit's views) and rows it matches, which the deterministic engine never answers for fruit.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;
const PASSWORD = 'Bark-and-peel-42';
const jpeg = (name: string, buffer: Buffer) => ({ name, mimeType: 'image/jpeg', buffer });
const short = (id: string) => id.replace(/-/g, '').slice(0, 8).toUpperCase();
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

describe('named fruit and a batch decided in its table, in a real browser', () => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    // `npm test` builds the app first; a single spec run builds it when it is missing.
    if (!existsSync('web/dist/batch-rows.js')) execFileSync(process.execPath, ['web/build.mjs'], { stdio: 'inherit' });
    app = await startTestApp();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  async function signedIn(size: keyof typeof SIZES, username: string): Promise<{ ctx: BrowserContext; page: Page }> {
    const ctx = await browser.newContext({
      viewport: SIZES[size],
      isMobile: size === 'phone',
      hasTouch: size === 'phone',
      locale: 'vi-VN',
    });
    const page = await ctx.newPage();
    await page.goto(app.url);
    await page.fill('input[name=username]', username);
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[name=login]');
    await page.locator('form[name=identify]').waitFor();
    return { ctx, page };
  }

  for (const [size, seed] of [
    ['phone', 5100],
    ['desktop', 5200],
  ] as const) {
    it(`${size}: fruit enrolled with a name and as apple, listed by name or short code, and published`, async () => {
      const owner = await signup(app.url, `orchard_${size}`);
      const tree = await api(app.url, 'POST', '/api/enroll', {
        token: owner.token,
        body: photoForm([await textureImage(seed, 320)], { species: 'apple', name: `Cây táo ${size}` }),
      });
      expect(tree.status, tree.text).toBe(200);
      // One fruit without a name, enrolled through the API as before.
      const plain = await api(app.url, 'POST', '/api/fruit/enroll', {
        token: owner.token,
        body: photoForm([await textureImage(seed + 1, 320)], { tree_id: tree.json.code }),
      });
      expect(plain.status, plain.text).toBe(200);
      const { ctx, page } = await signedIn(size, owner.username);
      try {
        await page.goto(`${app.url}/#/enrol/fruit`);
        const form = page.locator('form[name=enrol]');
        await form.locator('select[name=species] option[value=apple]').waitFor({ state: 'attached' });
        expect(await form.locator('select[name=species] option[value=apple]').textContent()).toContain('Táo tây');
        for (const id of ['pear', 'peach', 'persimmon', 'grape'])
          expect(await form.locator(`select[name=species] option[value=${id}]`).count(), id).toBe(1);
        await form.locator('input[type=file]').setInputFiles([jpeg('peel-1.jpg', await textureImage(seed + 2, 320))]);
        await form.locator('input[name=name]').fill(`Táo số 7 ${size}`);
        await form.locator('input[name=tree_id]').fill(tree.json.code);
        await form.locator('select[name=species]').selectOption('apple');
        const sent = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/fruit/enroll');
        await form.locator('button[type=submit]').click();
        const enrolled = await (await sent).json();
        expect(enrolled.fruit_id, JSON.stringify(enrolled)).toBeTruthy();
        const row = await app.container.db.query<{ name: string; species: string; tree_id: string }>(
          'select name, species, tree_id from individuals where id = $1',
          [enrolled.fruit_id],
        );
        expect(row.rows[0]).toEqual({ name: `Táo số 7 ${size}`, species: 'apple', tree_id: tree.json.tree_id });
        await page.screenshot({ path: screenshotPath(`${size}-39-fruit-enrol-named.png`), fullPage: true });

        // The list: the named fruit by its name, the unnamed one by its short code; never "(chưa đặt tên)" or a UUID.
        await page.goto(`${app.url}/#/fruits`);
        const named = page.locator(`.fruit-item[data-id="${enrolled.fruit_id}"]`);
        await named.waitFor();
        expect(await named.locator('strong').textContent()).toBe(`Táo số 7 ${size}`);
        expect(await named.locator('small').textContent()).toContain(`Cây táo ${size} (${tree.json.code})`);
        expect(await page.locator(`.fruit-item[data-id="${plain.json.fruit_id}"] strong`).textContent()).toBe(
          `Quả ${short(plain.json.fruit_id)}`,
        );
        const listText = (await page.locator('.fruit-list').textContent()) ?? '';
        expect(listText).not.toContain('chưa đặt tên');
        expect(listText).not.toMatch(UUID);
        await page.screenshot({ path: screenshotPath(`${size}-39-fruit-list-named.png`), fullPage: true });

        // Its page: the name as the heading, and a publish button that publishes it.
        await page.goto(`${app.url}/#/fruit/${enrolled.fruit_id}`);
        await page.locator('h2', { hasText: `Táo số 7 ${size}` }).waitFor();
        expect(await page.locator('.publish .visibility').textContent()).toBe('riêng tư');
        await page.click('.publish button[name=publish]');
        await expect.poll(() => page.locator('.publish .visibility').textContent()).toBe('công khai');
        const vis = await app.container.db.query<{ visibility: string }>('select visibility from individuals where id = $1', [
          enrolled.fruit_id,
        ]);
        expect(vis.rows[0]!.visibility).toBe('public');
        expect(await page.locator('.publish button[name=unpublish]').count()).toBe(1);
        await page.screenshot({ path: screenshotPath(`${size}-39-fruit-published.png`), fullPage: true });
      } finally {
        await ctx.close();
      }
    });

    it(`${size}: every batch row names fruit, tree and code; unsure rows are decided in the table and the CSV says so`, async () => {
      const owner = await signup(app.url, `packer_${size}`);
      const tree = await api(app.url, 'POST', '/api/enroll', {
        token: owner.token,
        body: photoForm([await textureImage(seed + 10, 320)], { species: 'apple', name: `Hàng táo ${size}` }),
      });
      expect(tree.status, tree.text).toBe(200);
      const code = tree.json.code as string;
      const peels: Record<string, Buffer[]> = {};
      const ids: Record<string, string> = {};
      for (const [k, s, name] of [
        ['A', seed + 11, `Táo A ${size}`],
        ['B', seed + 21, `Táo B ${size}`],
        ['C', seed + 31, null],
      ] as const) {
        peels[k] = [await textureImage(s, 320), await textureImage(s + 1, 320)];
        const f = await api(app.url, 'POST', '/api/fruit/enroll', {
          token: owner.token,
          body: photoForm(peels[k], { species: 'apple', tree_id: code, ...(name ? { name } : {}) }),
        });
        expect(f.status, f.text).toBe(200);
        ids[k] = f.json.fruit_id;
      }
      const { ctx, page } = await signedIn(size, owner.username);
      try {
        await page.goto(`${app.url}/#/batch`);
        // Two of its "fruit" are two fruit's photos as one fruit's views: the engine cannot be sure which.
        await page.locator('form[name=batch] input[name=files]').setInputFiles(await mixedViewsBatch(peels));
        await page.click('form[name=batch] button[type=submit]');
        await page.locator('table.rows tbody tr').nth(3).waitFor({ timeout: 120_000 });
        const row = (n: number) => page.locator(`table.rows tbody tr[data-index="${n}"]`);
        const cells = async (n: number) => ({
          fruit: ((await row(n).locator('td.fruit').textContent()) ?? '').trim(),
          tree: ((await row(n).locator('td.tree').textContent()) ?? '').trim(),
          verdict: ((await row(n).locator('td.verdict').textContent()) ?? '').trim(),
        });
        // Row order is the request's: a.jpg, mix, mix2, c.jpg.
        expect(await cells(0)).toMatchObject({ fruit: `Táo A ${size}`, tree: `Hàng táo ${size} (${code})` });
        expect((await cells(0)).verdict).toMatch(/^khớp · \d+%/);
        expect(await cells(3)).toMatchObject({ fruit: `Quả ${short(ids.C!)}`, tree: `Hàng táo ${size} (${code})` });
        const tableText = (await page.locator('table.rows').textContent()) ?? '';
        expect(tableText).not.toContain('chưa đặt tên');
        expect(tableText).not.toMatch(UUID);
        for (const n of [1, 2]) {
          expect(await row(n).getAttribute('class')).toContain('undecided');
          expect((await cells(n)).verdict).toContain('chưa chắc');
          expect(await row(n).locator('.choice').count()).toBeGreaterThanOrEqual(2);
          expect(await row(n).locator(`.choice[data-id="${ids.B}"]`).textContent()).toContain(`Táo B ${size}`);
        }
        await page.screenshot({ path: screenshotPath(`${size}-39-batch-undecided.png`), fullPage: true });

        // "This one" on the second candidate of the first unsure row.
        const batch = await app.container.db.query<{ id: string }>('select id from fruit_batches where owner_id = $1', [owner.id]);
        const batchId = batch.rows[0]!.id;
        const queryOf = async (idx: number) =>
          (
            await app.container.db.query<{ query_id: string }>('select query_id from fruit_batch_rows where batch_id = $1 and idx = $2', [
              batchId,
              idx,
            ])
          ).rows[0]!.query_id;
        const second = row(1).locator('.choice').nth(1);
        const chosen = (await second.getAttribute('data-id'))!;
        const chosenName = chosen === ids.A ? `Táo A ${size}` : chosen === ids.B ? `Táo B ${size}` : `Quả ${short(chosen)}`;
        await second.locator('button[name=this-one]').click();
        await expect.poll(async () => (await row(1).getAttribute('class')) ?? '').toContain(' decided');
        expect(await cells(1)).toMatchObject({ fruit: chosenName, tree: `Hàng táo ${size} (${code})` });
        expect((await cells(1)).verdict).toContain('Bạn đã chọn quả này.');
        expect(await row(1).locator('button[name=this-one]').count()).toBe(0);

        // "None of these" on the other.
        await row(2).locator('button[name=none-of-these]').click();
        await expect.poll(async () => (await row(2).getAttribute('class')) ?? '').toContain(' decided');
        expect((await cells(2)).verdict).toContain('không phải quả nào trong danh sách');
        expect((await cells(2)).tree).toBe('');
        expect((await cells(2)).fruit).toBe('—');
        await page.screenshot({ path: screenshotPath(`${size}-39-batch-decided.png`), fullPage: true });

        // Each decision is a label on the row's stored answer, as /api/fruit/identify_verdict stores any.
        const labels = await app.container.db.query<{ query_id: string; verdict: string; correct_id: string | null }>(
          'select query_id, verdict, correct_id from identify_verdicts where owner_id = $1',
          [owner.id],
        );
        expect(labels.rows).toEqual(
          expect.arrayContaining([
            { query_id: await queryOf(1), verdict: 'other', correct_id: chosen },
            { query_id: await queryOf(2), verdict: 'other', correct_id: null },
          ]),
        );
        expect(labels.rows).toHaveLength(2);

        // Reopened from the past batches, the decisions are still there.
        await page.reload();
        await page.locator('.past-batches button[name=open-batch]').first().click();
        await expect.poll(async () => (await row(1).getAttribute('class')) ?? '').toContain(' decided');

        // The CSV the packing house downloads reads the same, from the link on the screen.
        const href = (await page.locator('.past-batches a[download]').first().getAttribute('href'))!;
        const csv = await page.evaluate(async (u) => (await fetch(u)).text(), href);
        const lines = csv.trimEnd().split('\r\n');
        const line = (name: string) => lines.find((l) => l.split(',')[1] === name) ?? '';
        expect(line('a.jpg')).toContain(`,match,,Táo A ${size},${tree.json.tree_id},Hàng táo ${size},${code},`);
        expect(line('c.jpg').endsWith(`,${short(ids.C!)},,,,,,`)).toBe(true);
        expect(line('mix')).toContain(`,other,${chosen},`);
        expect(line('mix').endsWith(`,${short(chosen)},Hàng táo ${size},${code}`)).toBe(true);
        expect(line('mix2')).toMatch(/,other,,,,,$/);
      } finally {
        await ctx.close();
      }
    });
  }
});
