import { detectableShots } from '../support/animal-shots.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/postgres.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { ensureWebBuilt, launchChromium, submitSignIn } from '../support/browser.js';
import { otherView, textureImage } from '../support/images.js';
import { screenshotPath } from '../support/screenshots.js';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
/** Ho Chi Minh City: where the phone says it is when the tree is enrolled. */
const HERE = { latitude: 10.7769, longitude: 106.7009 };

/** The same screen at phone and at desktop size. */
async function shots(page: Page, step: string) {
  await shot(page, `phone-${step}`);
  await page.setViewportSize(DESKTOP);
  await shot(page, `desktop-${step}`);
  await page.setViewportSize(PHONE);
}

const jpeg = (name: string, buffer: Buffer) => ({ name, mimeType: 'image/jpeg', buffer });

/** A screenshot of the whole page (support/screenshots.ts says where; `npm run screenshots` refreshes the documented ones). */
async function shot(page: Page, name: string) {
  // From the top, so the sticky header sits where a person sees it.
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: screenshotPath(`${name}.png`), fullPage: true });
}

describe('the field web app in a real browser', () => {
  let app: TestApp;
  let browser: Browser;
  let phone: BrowserContext;
  let page: Page;
  const surface: Buffer[] = [];
  const username = uniqueName('farmer_').toLowerCase();
  let treeId = '';

  beforeAll(async () => {
    ensureWebBuilt();
    app = await startTestApp();
    browser = await launchChromium();
    phone = await browser.newContext({
      viewport: PHONE,
      isMobile: true,
      hasTouch: true,
      geolocation: HERE,
      permissions: ['geolocation'],
      locale: 'vi-VN',
    });
    await phone.grantPermissions(['geolocation'], { origin: app.url });
    page = await phone.newPage();
    const bark = await textureImage(1501, 512);
    for (let k = 1; k <= 4; k++) surface.push(await otherView(bark, 15010 + k));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('signs up without ever showing a token: the session is an HttpOnly cookie', async () => {
    await page.goto(`${app.url}/TreeIdentity`);
    await page.getByRole('heading', { name: 'Đăng nhập' }).waitFor();
    await shots(page, '01-sign-in');
    await submitSignIn(page, username, 'signup');
    const cookie = (await phone.cookies()).find((c) => c.name === 'markless_session')!;
    expect(cookie.httpOnly).toBe(true);
    expect(await page.content()).not.toContain(cookie.value);
    expect(await page.evaluate<string>('document.cookie')).not.toContain(cookie.value);
    expect(await page.evaluate<string>('JSON.stringify(localStorage)')).not.toContain(cookie.value);
    // Every tab is on screen at 390 px (they wrap), none past the right edge to be found by swiping.
    const tabs = await page.locator('nav a:visible').evaluateAll((as) => as.map((a) => a.getBoundingClientRect().right));
    expect(tabs.length).toBeGreaterThan(4);
    expect(Math.max(...tabs)).toBeLessThanOrEqual(390);
  });

  it("enrols a tree from photos, with the phone's location", async () => {
    await page.click('nav a[href="#/enrol"]');
    await page.setInputFiles(
      'form[name=enrol] input[type=file]',
      surface.slice(0, 3).map((b, i) => jpeg(`bark-${i}.jpg`, b)),
    );
    await expect.poll(() => page.locator('.thumbs img').count()).toBe(3);
    await page.selectOption('select[name=species]', 'durian');
    await page.fill('input[name=farm_id]', 'vuon-1');
    await page.fill('input[name=name]', 'Sầu riêng số 1');
    await page.click('button[name=locate]');
    await page.getByText('10.776900, 106.700900').waitFor();
    await shot(page, 'phone-02-enrol');
    await page.click('form[name=enrol] button[type=submit]');
    await page.getByText('Đã đăng ký.').waitFor({ timeout: 60_000 });
    const href = await page.locator('.notice.ok a').getAttribute('href');
    treeId = decodeURIComponent(href!.replace('#/tree/', ''));
    const row = await app.container.db.query<{ name: string; lat: number }>('select name, lat from individuals where id = $1', [treeId]);
    expect(row.rows[0]).toEqual({ name: 'Sầu riêng số 1', lat: 10.7769 });
  });

  it('identifies it: candidates beside the query photo, probability in words, and the choice is recorded', async () => {
    await page.click('nav a[href="#/identify"]');
    await page.setInputFiles('form[name=identify] input[type=file]', [jpeg('query.jpg', surface[3]!)]);
    // The first answer is a 429: the app must wait Retry-After and send the same photo again.
    const sent: number[] = [];
    await page.route('**/api/identify', async (route) => {
      sent.push(route.request().postDataBuffer()?.length ?? 0);
      if (sent.length > 1) return route.continue();
      return route.fulfill({
        status: 429,
        headers: { 'Retry-After': '2' },
        contentType: 'application/json',
        body: '{"ok":false,"error":"slow down","detail":"slow down"}',
      });
    });
    await page.click('form[name=identify] button[type=submit]');
    await page.locator('.wait', { hasText: 'Đang đợi 2 giây' }).waitFor();
    const first = page.locator('.candidate').first();
    await first.waitFor({ timeout: 60_000 });
    expect(await first.getAttribute('data-id')).toBe(treeId);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe(sent[0]);
    expect(sent[0]).toBeGreaterThan(surface[3]!.length);
    await page.unroute('**/api/identify');
    await expect
      .poll(() => first.locator('img').evaluateAll((imgs) => imgs.map((i) => (i as unknown as { naturalWidth: number }).naturalWidth > 0)))
      .toEqual([true, true]);
    // Worded by likeness, never 'unlikely' above a choose button.
    expect(await first.locator('.likelihood').innerText()).toMatch(/(rất|khá|hơi) giống \(\d+%\)/);
    expect(await first.locator('.likelihood').innerText()).not.toMatch(/ít khả năng/);
    // The species in the app's language, never the catalogue id.
    expect(await first.locator('.likelihood').innerText()).toMatch(/^Sầu riêng · /);
    // Under the verdict: which calibration decided. Trees have no shipped calibration and this owner
    // has labelled nothing yet, so the hand-set defaults decide, and the sentence says so.
    const decided = page.locator('.decided-by');
    expect(await decided.getAttribute('data-source')).toBe('kind_default');
    expect(await decided.innerText()).toMatch(/^Chưa có hiệu chuẩn nào đủ bằng chứng cho loại này.*cần khoảng 300 câu trả lời\.$/);
    await shots(page, '03-identify');
    await first.locator('button.choose').click();
    await page.getByText('Đã ghi nhận lựa chọn của bạn.').waitFor();
    const v = await app.container.db.query<{ verdict: string; correct_id: string }>(
      'select v.verdict, v.correct_id from identify_verdicts v join accounts a on a.id = v.owner_id where a.username = $1',
      [username],
    );
    expect(v.rows).toEqual([{ verdict: 'correct', correct_id: treeId }]);
  });

  it("shows the tree's timeline, publishes it, and opens /t/{code} with photos, a cell map and the anchor in words", async () => {
    await page.click('.chosen a.button');
    await page.locator('.timeline li').first().waitFor();
    expect(await page.locator('.timeline li').count()).toBeGreaterThan(0);
    await page.click('button[name=publish]');
    const link = page.locator('a[name=trace-link]');
    await link.waitFor();
    // The species by its name in the app's language, never the catalogue id.
    expect(await page.locator('.card .meta').first().innerText()).toMatch(/^Sầu riêng · vuon-1 · /);
    await shots(page, '04-tree');
    const href = (await link.getAttribute('href'))!;
    expect(href).toMatch(/^\/t\/[A-Z0-9]+-w3gv[0-9a-z]{3}-/i);
    await link.click();
    // Not anchored yet: the page says what that means, keeps the CID and hash under "for verifiers",
    // and offers the signed-in owner an anchor button (the local backend here).
    await page.locator('button[name=anchor]').waitFor();
    expect(await page.locator('p.hint', { hasText: 'Chưa được neo' }).count()).toBe(1);
    expect(await page.locator('details.verifiers summary').innerText()).toBe('Dành cho người kiểm chứng');
    expect(await page.locator('details.verifiers').textContent()).toContain('Ảnh trong bản ghi (chưa neo)');
    await page.click('button[name=anchor]');
    await page.locator('button[name=anchor]').waitFor({ state: 'detached' });
    const anchors = await app.container.db.query<{ n: number }>('select count(*)::int as n from anchors');
    expect(anchors.rows[0]!.n).toBeGreaterThan(0);
    await page.locator('.gallery img').first().waitFor();
    await expect
      .poll(() =>
        page.locator('.gallery img').evaluateAll((imgs) => imgs.every((i) => (i as unknown as { naturalWidth: number }).naturalWidth > 0)),
      )
      .toBe(true);
    expect(await page.locator('.gallery img').count()).toBe(3);
    expect(await page.locator('svg.cellmap rect.mine').count()).toBe(1);
    await page.locator('.timeline li').first().waitFor();
    // What the anchor is, in words: this server's own key, not a blockchain.
    // (Worded by the page, or by the server's own `anchor.text` where the resolve JSON carries it.)
    // It is part of the proof, folded for verifiers since issue 39 item 8.
    await page.click('details.verifiers summary');
    expect(await page.locator('.anchor-words').innerText()).toMatch(
      /^Được ký (bằng|bởi) kh(oá|óa) của chính máy chủ này.*không phải .*blockchain/,
    );
    await shots(page, '05-trace');
  });

  it('lists my trees with their photo, and renames one from its page', async () => {
    await page.goto(`${app.url}/TreeIdentity/#/mine`);
    const item = page.locator(`a.item[href="#/tree/${treeId}"]`);
    await item.waitFor();
    expect(await item.innerText()).toContain('Sầu riêng số 1');
    expect(await item.innerText()).not.toContain('durian');
    await expect
      .poll(() => item.locator('img').evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth))
      .toBeGreaterThan(0);
    await shots(page, '06-mine');
    await item.click();
    await page.fill('form[name=rename] input[name=name]', 'Sầu riêng đầu dốc');
    await page.click('form[name=rename] button[type=submit]');
    await page.locator('form[name=rename] .notice.ok').waitFor();
    const row = await app.container.db.query<{ name: string }>('select name from individuals where id = $1', [treeId]);
    expect(row.rows[0]!.name).toBe('Sầu riêng đầu dốc');
  });

  it("logs a spray on the tree's page: the page says harvest is blocked until when, and the timeline gains it", async () => {
    await page.goto(`${app.url}/TreeIdentity/#/tree/${encodeURIComponent(treeId)}`);
    const care = page.locator('section.care');
    await care.getByText('Không có thời gian cách ly nào đang chạy.').waitFor();
    const before = await page.locator('.timeline li').count();
    await care.locator('input[name=action]').fill('phun thuốc');
    await care.locator('input[name=product_name]').fill('Thuốc trừ sâu thử');
    await care.locator('input[name=interval_days]').fill('14');
    await care.locator('button[type=submit]').click();
    await care.getByText(/^Chưa được thu hoạch hay bán đến /).waitFor();
    expect(await care.locator('.withdrawal').innerText()).toContain('Thuốc trừ sâu thử: 14 ngày');
    await expect.poll(() => page.locator('.timeline li').count()).toBe(before + 1);
    // The tree's own treatment is its care, not the farm's.
    const logged = page.locator('.timeline li', { hasText: 'phun thuốc' });
    expect((await logged.locator('b').innerText()).trim()).toBe('Chăm sóc:');
    expect(await logged.innerText()).not.toContain('trang trại');
    const rows = await app.container.db.query<{ product_name: string; days: number }>(
      `select product_name, (withdrawal->>'interval_days')::int as days from care_entries where target_id = $1 and deleted_at is null`,
      [treeId],
    );
    expect(rows.rows).toEqual([{ product_name: 'Thuốc trừ sâu thử', days: 14 }]);
    await shot(page, 'phone-20-tree-care');
  });

  it('runs a small fruit batch and shows its progress to the end', async () => {
    await page.goto(`${app.url}/identify#/batch`);
    const fruit = await Promise.all([1601, 1602, 1603].map(async (s) => jpeg(`fruit-${s}.jpg`, await textureImage(s, 320))));
    await page.setInputFiles('form[name=batch] input[name=files]', fruit);
    await page.click('form[name=batch] button[type=submit]');
    await page.locator('progress').waitFor();
    await page.getByText('Lô đã xong.').waitFor({ timeout: 90_000 });
    expect(
      await page.locator('progress').evaluate((p) => [(p as unknown as { value: number }).value, (p as unknown as { max: number }).max]),
    ).toEqual([3, 3]);
    expect(await page.locator('table.rows tbody tr').count()).toBe(3);
    await shots(page, '07-batch');
  }, 120_000);

  it('records a herd count: the dashboard shows the zone, its alert, and resolving clears it', async () => {
    // One animal enrolled into the same farm (through the API, with this session's cookie).
    const cows = await detectableShots(1701, 3);
    const form = new FormData();
    for (const [k, v] of Object.entries({ species: 'cattle', farm_id: 'vuon-1', zone: 'chuong-a', name: 'Bò Vàng' })) form.append(k, v);
    for (const [k, s] of cows.entries()) form.append('files', new Blob([new Uint8Array(s.photo)], { type: 'image/jpeg' }), `cow-${k}.jpg`);
    const enrolled = await page.request.post(`${app.url}/api/animal/enroll`, {
      multipart: form,
      headers: { origin: app.url },
      timeout: 60_000,
    });
    expect(enrolled.status()).toBe(200);

    await page.click('nav a[href="#/population"]');
    await page.fill('form.row input[name=farm_id]', 'vuon-1');
    await page.click('form.row button[type=submit]');
    await page.locator('.stats').waitFor();
    await page.fill('form[name=count] input[name=zone]', 'chuong-a');
    await page.fill('form[name=count] input[name=count]', '0');
    await page.click('form[name=count] button[type=submit]');
    await page.locator('ul.alerts li', { hasText: 'Vùng chuong-a đếm được 0 con, ít hơn 1 con đã đăng ký' }).waitFor();
    expect(await page.locator('tr.zone-alert td').first().innerText()).toBe('chuong-a');
    await shots(page, '08-population');
    await page.locator('ul.alerts li button').click();
    await page.getByText('Không có cảnh báo.').waitFor();
    const open = await app.container.db.query('select 1 from population_alerts where farm_id = $1 and resolved_at is null', ['vuon-1']);
    expect(open.rows).toHaveLength(0);
  }, 90_000);

  it('switches to English and signs out, after which the app asks to sign in again', async () => {
    await page.goto(`${app.url}/Identify#/population`);
    await page.click('button[name=lang]');
    await page.getByRole('heading', { name: 'Herd counts' }).waitFor();
    await shot(page, 'phone-09-population-en');
    await page.click('button[name=signout]');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect((await phone.cookies()).find((c) => c.name === 'markless_session')).toBeUndefined();
  });
});
