/**
 * Before/after gallery of the web app for issue 39's ten items: drives a running service's app in
 * headless Debian Chromium at phone size (390×844, touch, vi-VN), one short scenario per item,
 * and saves one screenshot per item and the scenarios' wall times.
 *
 *   npx tsx benchmarks/app-before-after.ts --serve <repository root>
 *     starts that checkout's own service (its test/support/app.ts startTestApp: embedded, real
 *     engine) and prints `url <base URL>`; it runs until interrupted.
 *   npx tsx benchmarks/app-before-after.ts --url <base URL> --out <dir> --label before|after
 *     writes <label>-<NN>-<slug>.png per item and <label>.json (each scenario's ms from its first
 *     action to its final screen, and a one-line note of what the screen showed).
 *
 * Every scenario is tolerant: an older app lacks some screens, buttons and fields; then the
 * scenario keeps what that app shows and its note says what was missing. Photos are generated
 * (the browser specs' generators), never dataset photos. Accounts and records are made through
 * the API before each scenario's clock starts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import sharp from 'sharp';
import { machineInfo, parseArgs } from './machine.js';
import { detectableShots } from '../test/support/animal-shots.js';
import { mixedViewsBatch, otherView, textureImage } from '../test/support/images.js';
import { animalScene } from '../workers/src/vision/testing/animal-scene.js';
import { herdClip } from '../workers/src/survey/testing/herd-clip.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PASSWORD = 'Bark-and-peel-42';
const PHONE = { width: 390, height: 844 };
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const CID = /baf[a-z0-9]{20,}|Qm[1-9A-Za-z]{20,}/;
/** Largest screenshot kept as taken; a bigger one is re-encoded with a palette (PNG has no quality setting). */
const MAX_PNG = 140_000;

type File = { name: string; mimeType: string; buffer: Buffer };
const jpeg = (name: string, buffer: Buffer): File => ({ name, mimeType: 'image/jpeg', buffer });
const clip = (s: string | null | undefined, n = 160) => (s ?? '').replace(/\s+/g, ' ').trim().slice(0, n);

// ---------------------------------------------------------------------------------------------
// --serve: one checkout's own service

async function serve(root: string): Promise<void> {
  const mod = (await import(pathToFileURL(path.join(path.resolve(root), 'test/support/app.ts')).href)) as {
    startTestApp(o: { env?: Record<string, string> }): Promise<{ url: string; stop(): Promise<void> }>;
  };
  const app = await mod.startTestApp({ env: { RATE_LIMIT_PER_MIN: '100000', FRUIT_PUBLIC_PER_MIN: '10000' } });
  console.log(`url ${app.url}`);
  const stop = () => void app.stop().finally(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

// ---------------------------------------------------------------------------------------------
// The API, for setting a scenario up before its clock starts

interface Account {
  username: string;
  token: string;
}

async function apiCall(base: string, method: string, p: string, opts: { token?: string; json?: unknown; body?: FormData } = {}) {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: RequestInit['body'] = opts.body;
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.json);
  }
  const res = await fetch(base + p, { method, headers, body });
  const text = await res.text();
  let json: Record<string, any> = {};
  try {
    json = JSON.parse(text) as Record<string, any>;
  } catch {
    /* not JSON */
  }
  return { status: res.status, json, text };
}

function form(photos: Buffer[], fields: Record<string, string> = {}): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  photos.forEach((p, i) => f.append('files', new Blob([new Uint8Array(p)], { type: 'image/jpeg' }), `photo-${i}.jpg`));
  return f;
}

let serial = 0;
async function account(base: string, prefix: string): Promise<Account> {
  const username = `${prefix}_${process.pid.toString(36)}${(++serial).toString(36)}${Date.now().toString(36).slice(-4)}`;
  const r = await apiCall(base, 'POST', '/api/signup', { json: { username, password: PASSWORD } });
  if (r.status !== 200) throw new Error(`signup: ${r.status} ${r.text}`);
  return { username, token: r.json.token as string };
}

/**
 * POSTs an enrolment; its JSON, or throws with the service's answer. A species the service's
 * catalogue lacks (the old one had no apple) is left out rather than refused.
 */
async function enrol(base: string, who: Account, p: string, photos: Buffer[], fields: Record<string, string>) {
  let r = await apiCall(base, 'POST', p, { token: who.token, body: form(photos, fields) });
  if (r.status === 422 && r.json.detail === 'species' && fields.species) {
    const { species: _dropped, ...rest } = fields;
    r = await apiCall(base, 'POST', p, { token: who.token, body: form(photos, rest) });
  }
  if (r.status !== 200) throw new Error(`${p}: ${r.status} ${clip(r.text, 300)}`);
  return r.json;
}

/** A new account with one apple tree enrolled from one generated bark photo; its code (or id) for fruit to name. */
async function appleTree(base: string, prefix: string, seed: number, name: string): Promise<{ owner: Account; treeRef: string }> {
  const owner = await account(base, prefix);
  const tree = await enrol(base, owner, '/api/enroll', [await textureImage(seed, 320)], { species: 'apple', name });
  return { owner, treeRef: String(tree.code ?? tree.tree_id) };
}

// ---------------------------------------------------------------------------------------------
// The browser

async function phone(browser: Browser): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, locale: 'vi-VN' });
  return { ctx, page: await ctx.newPage() };
}

/** Signs `who` in through the app's own form (not timed: every scenario starts signed in). */
async function signIn(page: Page, base: string, who: Account, hash = ''): Promise<void> {
  await page.goto(`${base}/${hash}`);
  await page.fill('input[name=username]', who.username);
  await page.fill('input[name=password]', PASSWORD);
  await page.click('button[name=login]');
  await page.locator('header .user', { hasText: who.username }).waitFor({ timeout: 30_000 });
}

/** Whether `loc` shows up (attached) within `ms`. */
async function appears(loc: Locator, ms: number, state: 'attached' | 'visible' = 'attached'): Promise<boolean> {
  try {
    await (state === 'visible' ? loc.filter({ visible: true }) : loc).first().waitFor({ state, timeout: ms });
    return true;
  } catch {
    return false;
  }
}

const text = async (loc: Locator): Promise<string> => ((await loc.count()) ? clip(await loc.first().innerText()) : '');
const mainText = (page: Page): Promise<string> => page.evaluate<string>('(document.querySelector("main") || document.body).innerText');
/** The visible tab links' routes, in order; a tab drawn folded (`.later`) is marked so. */
const tabs = (page: Page): Promise<string[]> =>
  page.evaluate<string[]>(
    '[...document.querySelectorAll("nav a")].filter((a) => a.offsetParent).map((a) => a.getAttribute("href").replace("#/", "") + (a.classList.contains("later") ? " (folded)" : ""))',
  );
/** Whether anything is wider than the phone. */
const overflow = (page: Page): Promise<number> => page.evaluate<number>('document.documentElement.scrollWidth - innerWidth');

/** Every photo in `scope` that is on screen loaded (or `ms` passed); photos below the fold load lazily. */
async function photosLoaded(page: Page, scope: string, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  const js = `[...document.querySelectorAll(${JSON.stringify(scope + ' img')})]
    .filter((i) => { const r = i.getBoundingClientRect(); return r.width > 0 && r.bottom > 0 && r.top < innerHeight; })
    .every((i) => i.complete && i.naturalWidth > 0)`;
  while (Date.now() < until && !(await page.evaluate<boolean>(js))) await page.waitForTimeout(200);
}

/** For a whole-page picture: scrolls down the page a screen at a time so its lazy photos load, then back to the top. */
async function loadWholePage(page: Page): Promise<void> {
  const height = await page.evaluate<number>('document.documentElement.scrollHeight');
  for (let y = 0; y < height; y += PHONE.height * 0.8) {
    await page.evaluate(`window.scrollTo(0, ${y})`);
    await photosLoaded(page, 'body', 5_000);
  }
  await page.evaluate('window.scrollTo(0, 0)');
}

/**
 * Records, in the page, the photo names of every form the page sends to a path ending in
 * `suffix` (Chromium does not hand a file upload's body to Playwright).
 */
const WATCH_SENT = (suffix: string) => `(() => {
  const sent = (window.__sent = []);
  const fetch0 = window.fetch.bind(window);
  window.fetch = (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input.url, location.href);
    if (url.pathname.endsWith(${JSON.stringify(suffix)}) && init && init.body instanceof FormData) sent.push(init.body.getAll('files').map((f) => f.name));
    return fetch0(input, init);
  };
})()`;

// ---------------------------------------------------------------------------------------------
// The scenarios

interface Outcome {
  /** The page on its final screen, to photograph. */
  page: Page;
  note: string;
  fullPage?: boolean;
  /** Contexts to close once photographed. */
  close: BrowserContext[];
}
interface Scenario {
  n: number;
  slug: string;
  item: string;
  /** Makes what the scenario needs; `go` runs on the clock. */
  run(env: Env, clock: { start(): void }): Promise<Outcome>;
}
interface Env {
  base: string;
  browser: Browser;
}

/** Waits for the `n`-th answer of POST …/identify, then for its candidates or its notice. */
async function answerOf(page: Page, counter: { n: number }, n: number): Promise<void> {
  const until = Date.now() + 90_000;
  while (counter.n < n && Date.now() < until) await page.waitForTimeout(100);
  await appears(page.locator('form[name=identify] ~ * .candidates, form[name=identify] ~ * .notice, .candidates'), 15_000, 'visible');
}

const scenarios: Scenario[] = [
  {
    n: 1,
    slug: 'identify-one-subject',
    item: 'Identify asks one subject at a time; "another angle" is explicit',
    async run({ base, browser }, clock) {
      const farmer = await account(base, 'farmer');
      const surfaces: Record<string, Buffer[]> = {};
      for (const [name, seed] of [
        ['a', 3931],
        ['b', 3932],
      ] as const) {
        const s = await textureImage(seed, 384);
        surfaces[name] = [];
        for (let k = 1; k <= 3; k++) surfaces[name].push(await otherView(s, seed * 10 + k));
        await enrol(base, farmer, '/api/enroll', surfaces[name].slice(0, 2), { species: 'mango', name: `Cây ${name.toUpperCase()}` });
      }
      const { ctx, page } = await phone(browser);
      await page.addInitScript(WATCH_SENT('/identify'));
      await signIn(page, base, farmer, '#/identify');
      const answers = { n: 0 };
      page.on('response', (r) => {
        if (r.request().method() === 'POST' && new URL(r.url()).pathname.endsWith('/identify')) answers.n++;
      });
      const input = page.locator('form[name=identify] input[type=file]').first();
      const submit = page.locator('form[name=identify] button[type=submit]').first();

      clock.start();
      await page.goto(`${base}/#/identify`);
      await input.waitFor({ state: 'attached', timeout: 30_000 });
      await input.setInputFiles([jpeg('a-query.jpg', surfaces.a![2]!)]);
      await submit.click();
      await answerOf(page, answers, 1);
      await input.setInputFiles([jpeg('b-query.jpg', surfaces.b![2]!)]);
      await submit.click();
      await answerOf(page, answers, 2);
      const sent = await page.evaluate<string[][]>('window.__sent');
      const left = await page.locator('form[name=identify] .thumbs img').count();
      const another = await page.locator('section.another-angle').count();
      const top = await text(page.locator('.candidate .pair figure:nth-child(2) figcaption, .candidate h3'));
      if (another) await page.locator('section.another-angle').scrollIntoViewIfNeeded();
      const second = sent[1] ?? [];
      return {
        page,
        close: [ctx],
        note:
          `second query sent ${second.length} photo(s) [${second.join(', ')}]; the picker holds ${left} photo(s) after the answer; ` +
          (another ? '"another angle of this one" offered' : 'no "another angle" control') +
          (top ? `; first candidate: ${top}` : ''),
      };
    },
  },
  {
    n: 2,
    slug: 'shop-fruit-lookup',
    item: 'Public fruit lookup (#/shop, no account): an honest verdict for a fruit never enrolled',
    async run({ base, browser }, clock) {
      // A grower's published fruit, so the shop has something to compare with.
      const grower = await account(base, 'grower');
      const peel = await textureImage(3933, 384);
      try {
        const tree = await enrol(base, grower, '/api/enroll', [await otherView(await textureImage(3931, 384), 1)], { species: 'mango' });
        const fruit = await enrol(base, grower, '/api/fruit/enroll', [await otherView(peel, 1), await otherView(peel, 2)], {
          species: 'mango',
          name: 'Xoài 1',
          tree_id: String(tree.tree_id),
        });
        await apiCall(base, 'POST', `/api/fruit/${String(fruit.fruit_id)}/publish`, { token: grower.token });
      } catch {
        /* the old service may refuse part of this: the lookup below is the same either way */
      }
      const stranger = await otherView(await textureImage(3934, 384), 3);
      const { ctx, page } = await phone(browser);

      clock.start();
      await page.goto(`${base}/#/shop`);
      const shop = page.locator('form[name=shop-photo]');
      await appears(page.locator('form[name=shop-photo], input[name=password], header .user'), 30_000);
      if (!(await shop.count())) {
        const what = (await page.locator('input[name=password]').count()) ? 'the sign-in form' : clip(await mainText(page), 80);
        return { page, close: [ctx], note: `no shopper screen at #/shop (no form[name=shop-photo]); showed ${what}; no verdict` };
      }
      await page.locator('form[name=shop-photo] input[type=file]').setInputFiles([jpeg('stranger.jpg', stranger)]);
      await page.click('form[name=shop-photo] button[type=submit]');
      const verdict = page.locator('.shop-answer .verdict');
      await verdict.waitFor({ timeout: 60_000 });
      const code = await verdict.getAttribute('data-verdict');
      const matches = await page.locator('.shop-answer [data-confidence=match]').count();
      return {
        page,
        close: [ctx],
        note: `no account; verdict "${await text(verdict)}" (${code ?? '?'}), ${matches} candidate(s) called a match`,
      };
    },
  },
  {
    n: 3,
    slug: 'survey-phone',
    item: 'Survey on a phone: labels and buttons fit, species is a picker, "not seen"',
    async run({ base, browser }, clock) {
      const herder = await account(base, 'herder');
      for (const [coat, name] of [
        [851, 'Bò Vàng'],
        [852, 'Bò Đốm'],
      ] as const) {
        const shots = (await detectableShots(coat, 3)).map((s) => s.photo);
        await enrol(base, herder, '/api/animal/enroll', shots, {
          species: 'cattle',
          farm_id: 'survey-farm',
          name,
          accept_warnings: 'true',
        });
      }
      const video = await herdClip({
        frames: 30,
        animals: [
          { coat: 851, x: (f) => 40 + 6 * f },
          { coat: 859, x: (f) => 760 - 5 * f },
        ],
      });
      const { ctx, page } = await phone(browser);
      await signIn(page, base, herder, '#/survey');

      clock.start();
      await page.goto(`${base}/#/survey`);
      const surveyForm = page.locator('form[name=survey]');
      if (!(await appears(surveyForm, 15_000))) return { page, close: [ctx], note: 'no survey form at #/survey' };
      const picker = (await surveyForm.locator('select[name=species]').count()) > 0;
      if (picker) {
        const until = Date.now() + 10_000;
        while (Date.now() < until && (await surveyForm.locator('select[name=species]').inputValue()) !== 'cattle')
          await page.waitForTimeout(100);
      } else await surveyForm.locator('input[name=species]').fill('cattle');
      await surveyForm.locator('input[type=file]').first().setInputFiles({ name: 'pass.mp4', mimeType: 'video/mp4', buffer: video });
      await surveyForm.locator('input[name=farm_id]').fill('survey-farm');
      await surveyForm.locator('button[type=submit]').click();
      const done = await appears(page.locator('ul.tracks li').nth(1), 240_000);
      const count = await text(page.locator('.stats b.big'));
      const notSeen = await text(page.locator('.notice', { hasText: /Không thấy|not seen|Chưa gọi được tên|Có thể đã thấy/ }));
      const lines = await page.evaluate<number>(`Math.max(0, ...[...document.querySelectorAll('.stats div span')].map((e) =>
        Math.round(e.getBoundingClientRect().height / (parseFloat(getComputedStyle(e).lineHeight) || parseFloat(getComputedStyle(e).fontSize) * 1.2))))`);
      const tight = await page.evaluate<number>(
        '[...document.querySelectorAll("ul.tracks button")].filter((b) => b.scrollWidth > b.clientWidth + 1 || b.getBoundingClientRect().height > 50).length',
      );
      const wide = await overflow(page);
      await loadWholePage(page);
      return {
        page,
        close: [ctx],
        fullPage: true,
        note:
          `species ${picker ? 'picked from a list' : 'typed in a text field'}; ` +
          (done ? `${count || '?'} head counted` : 'no track list within 240 s') +
          `; tallest stat label ${lines} line(s); ${tight} track button(s) wrapped or cut; ` +
          `${wide > 0 ? `page ${wide}px wider than the phone` : 'nothing wider than the phone'}; ` +
          (notSeen ? `the farm's cow not in the clip: "${notSeen}"` : 'nothing said of the cow not in the clip'),
      };
    },
  },
  {
    n: 4,
    slug: 'offline-reload',
    item: 'Offline reload: a signed-in user reopens on their last screen',
    async run({ base, browser }, clock) {
      const who = await account(base, 'offline');
      const { ctx, page } = await phone(browser);
      await signIn(page, base, who);
      // The service worker installed and in control, as after a first use with signal.
      const until = Date.now() + 30_000;
      while (
        Date.now() < until &&
        !(await page.evaluate<boolean>('navigator.serviceWorker.getRegistration().then((r) => Boolean(r && r.active))'))
      )
        await page.waitForTimeout(250);
      await page.click('nav a[href="#/survey"]');
      await page.locator('form[name=survey]').waitFor({ timeout: 30_000 });

      clock.start();
      await ctx.setOffline(true);
      await page.reload({ waitUntil: 'commit' }).catch(() => undefined);
      const shown = await appears(page.locator('header .user, input[name=password]'), 15_000, 'visible');
      const signedIn = shown && (await page.locator('header .user', { hasText: who.username }).count()) > 0;
      const onSurvey = signedIn && (await appears(page.locator('form[name=survey]'), 5_000));
      const banner = await text(page.locator('.offline-mode'));
      const body = clip(await page.evaluate<string>('document.body ? document.body.innerText : ""'), 60);
      const note = !shown
        ? `after 15 s offline the page still shows "${body}"`
        : signedIn
          ? `signed in as before, ${onSurvey ? 'on the survey screen' : 'not on the survey screen'}` + (banner ? `; banner: ${banner}` : '')
          : 'the sign-in form, not the last screen' + (banner ? `; banner: ${banner}` : '');
      return { page, close: [ctx], note };
    },
  },
  {
    n: 5,
    slug: 'fruit-named',
    item: 'Fruit is named: enrolment asks a name; the list shows names or short codes, not UUIDs',
    async run({ base, browser }, clock) {
      const { owner, treeRef } = await appleTree(base, 'orchard', 5100, 'Cây táo');
      await enrol(base, owner, '/api/fruit/enroll', [await textureImage(5101, 320)], { tree_id: treeRef });
      const peel = await textureImage(5102, 320);
      const { ctx, page } = await phone(browser);
      await signIn(page, base, owner);

      clock.start();
      await page.goto(`${base}/#/enrol/fruit`);
      const f = page.locator('form[name=enrol]');
      await f.waitFor({ timeout: 30_000 });
      await appears(f.locator('select[name=species] option'), 10_000);
      const hasName = (await f.locator('input[name=name]').count()) > 0;
      const hasApple = (await f.locator('select[name=species] option[value=apple]').count()) > 0;
      await f
        .locator('input[type=file]')
        .first()
        .setInputFiles([jpeg('peel-1.jpg', peel)]);
      if (hasName) await f.locator('input[name=name]').fill('Táo số 7');
      if (await f.locator('input[name=tree_id]').count()) await f.locator('input[name=tree_id]').fill(treeRef);
      if (hasApple) await f.locator('select[name=species]').selectOption('apple');
      const sent = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/fruit/enroll', { timeout: 60_000 });
      await f.locator('button[type=submit]').click();
      const answer = await sent.then((r) => r.status()).catch(() => 0);
      await page.goto(`${base}/#/fruits`);
      await appears(page.locator('.fruit-item, .fruit-list li, main li, main tr'), 15_000);
      await page.waitForTimeout(300);
      const list = await mainText(page);
      const items = await page.evaluate<string[]>(
        '[...document.querySelectorAll(".fruit-item strong, .fruit-list li, main li")].slice(0, 3).map((e) => e.innerText.split("\\n")[0])',
      );
      return {
        page,
        close: [ctx],
        note:
          `enrol form: ${hasName ? 'a name field' : 'no name field'}, ${hasApple ? 'apple in the species list' : 'no apple in the species list'} (enrol answered ${answer}); ` +
          `list: ${items.map((s) => `"${clip(s, 50)}"`).join(', ') || 'nothing listed'}` +
          (UUID.test(list) ? '; UUIDs on screen' : '; no UUID on screen') +
          (list.includes('chưa đặt tên') ? '; "(chưa đặt tên)" shown' : ''),
      };
    },
  },
  {
    n: 6,
    slug: 'batch-decide-in-table',
    item: 'Batch rows decided in the table ("Đúng quả này" / "Không phải quả nào")',
    async run({ base, browser }, clock) {
      const { owner, treeRef } = await appleTree(base, 'packer', 5210, 'Hàng táo');
      const peels: Record<string, Buffer[]> = {};
      for (const [k, s, name] of [
        ['A', 5211, 'Táo A'],
        ['B', 5221, 'Táo B'],
        ['C', 5231, null],
      ] as const) {
        peels[k] = [await textureImage(s, 320), await textureImage(s + 1, 320)];
        await enrol(base, owner, '/api/fruit/enroll', peels[k], { species: 'apple', tree_id: treeRef, ...(name ? { name } : {}) });
      }
      // The browser spec's batch: two of its "fruit" mix two fruit's photos as views.
      const files = await mixedViewsBatch(peels);
      const { ctx, page } = await phone(browser);
      await signIn(page, base, owner);

      clock.start();
      await page.goto(`${base}/#/batch`);
      const input = page.locator('form[name=batch] input[name=files]');
      await input.waitFor({ state: 'attached', timeout: 30_000 });
      await input.setInputFiles(files);
      await page.click('form[name=batch] button[type=submit]');
      const rows = page.locator('table.rows tbody tr');
      const listed = await appears(rows.nth(3), 180_000);
      // Every row answered (no row still waiting), or 60 s more.
      const until = Date.now() + 60_000;
      while (Date.now() < until && (await page.locator('table.rows tbody tr.pending, table.rows tbody tr.queued').count()))
        await page.waitForTimeout(250);
      const thisOne = page.locator('table.rows button[name=this-one]');
      const none = page.locator('table.rows button[name=none-of-these]');
      const offered = { thisOne: await thisOne.count(), none: await none.count() };
      const acts: string[] = [];
      if (offered.thisOne) {
        const row = page.locator('table.rows tbody tr', { has: page.locator('button[name=this-one]') }).first();
        const idx = await row.getAttribute('data-index');
        await thisOne.first().click();
        await appears(page.locator(`table.rows tbody tr[data-index="${idx}"].decided`), 15_000);
        acts.push(`"${await text(page.locator(`table.rows tbody tr[data-index="${idx}"] td.verdict`))}"`);
      }
      if (await none.count()) {
        const row = page.locator('table.rows tbody tr', { has: page.locator('button[name=none-of-these]') }).first();
        const idx = await row.getAttribute('data-index');
        await none.first().click();
        await appears(page.locator(`table.rows tbody tr[data-index="${idx}"].decided`), 15_000);
        acts.push(`"${await text(page.locator(`table.rows tbody tr[data-index="${idx}"] td.verdict`))}"`);
      }
      await scrollUnderHeader(page, 'table.rows');
      const table = await text(page.locator('table.rows'));
      return {
        page,
        close: [ctx],
        note: !listed
          ? 'no table of 4 rows within 180 s'
          : offered.thisOne || offered.none
            ? `${offered.thisOne} "this one" and ${offered.none} "none of these" buttons in the table; decided in place: ${acts.join(' and ')}`
            : `no decision buttons in the table (rows read: ${clip(table, 160)})`,
      };
    },
  },
  {
    n: 7,
    slug: 'duplicate-warning',
    item: 'Duplicate warning when the same animal is enrolled again',
    async run({ base, browser }, clock) {
      const scenes = async (coat: number, from: number, n: number) =>
        (await Promise.all(Array.from({ length: n }, (_, i) => animalScene({ coat, shot: from + i, dx: (i - 1) * 25 })))).map((b, i) =>
          jpeg(`cow-${coat}-${from + i}.jpg`, b),
        );
      const first = await scenes(35, 1, 3);
      const again = await scenes(35, 5, 3);
      const owner = await account(base, 'dup');
      const { ctx, page } = await phone(browser);
      await signIn(page, base, owner);
      let visit = 0;
      const enrolInApp = async (files: File[], name: string) => {
        await page.goto(`${base}/?visit=${++visit}#/enrol/animal`);
        const f = page.locator('form[name=enrol]');
        await f.waitFor({ timeout: 30_000 });
        await appears(f.locator('select[name=species] option[value=cattle]'), 10_000);
        await f.locator('input[type=file]').first().setInputFiles(files);
        if (await f.locator('select[name=species] option[value=cattle]').count())
          await f.locator('select[name=species]').selectOption('cattle');
        else if (await f.locator('input[name=species]').count()) await f.locator('input[name=species]').fill('cattle');
        if (await f.locator('input[name=farm_id]').count()) await f.locator('input[name=farm_id]').fill('trai-39');
        if (await f.locator('input[name=name]').count()) await f.locator('input[name=name]').fill(name);
        await f.locator('button[type=submit]').click();
      };

      clock.start();
      await enrolInApp(first, 'Bông');
      // A first enrolment may warn too (the old app about the photos themselves): keep it anyway.
      const firstDone = page.getByText('Đã đăng ký.');
      const keep = page.locator('button[name=keep-anyway], button[name=enrol-anyway]');
      await appears(page.locator('.notice.ok, button[name=keep-anyway], button[name=enrol-anyway], .notice.error'), 120_000, 'visible');
      if (!(await firstDone.count()) && (await keep.count())) {
        await keep.first().click();
        await appears(firstDone, 120_000);
      }
      await enrolInApp(again, 'Bông lần hai');
      const answered = await appears(
        page.locator('button[name=add-to-existing], .notice.ok, .notice.error, .notice.warn, button[name=keep-anyway]'),
        120_000,
        'visible',
      );
      await photosLoaded(page, '.duplicate', 15_000);
      const warn = await text(page.locator('.notice.warn'));
      const add = await text(page.locator('button[name=add-to-existing]'));
      const other = await text(page.locator('button[name=enrol-anyway]'));
      const photos = await page.locator('.duplicate img').count();
      const btn = (await page.locator('button[name=enrol-anyway]').count())
        ? await page.locator('button[name=enrol-anyway]').boundingBox()
        : null;
      const ok = await text(page.locator('.notice.ok'));
      return {
        page,
        close: [ctx],
        note: !answered
          ? 'no answer to the second enrolment within 120 s'
          : add
            ? `warning: "${warn}"; buttons "${add}" / "${other}"; ${photos} photo(s) of the enrolled cow shown` +
              (btn && btn.y + btn.height > PHONE.height ? '; "a different one" below the fold' : '; both answers on screen')
            : `no duplicate warning${ok ? `; enrolled as a new cow: "${ok}"` : warn ? `; "${warn}"` : ''}`,
      };
    },
  },
  {
    n: 8,
    slug: 'public-page',
    item: 'Public page /t/{code} reads for a shopper',
    async run({ base, browser }, clock) {
      const grower = await account(base, 'grower');
      await apiCall(base, 'PUT', '/api/me/public-name', { token: grower.token, json: { public_name: 'Vườn nhà cô Lan' } });
      const surface = await textureImage(3971, 384);
      const photos = await Promise.all([1, 2, 3].map((k) => otherView(surface, 39710 + k)));
      const tree = await enrol(base, grower, '/api/enroll', photos, {
        species: 'durian',
        name: 'Sầu riêng đầu dốc',
        farm_id: 'vuon-lan',
        lat: '11.9404',
        lon: '108.4583',
      });
      const id = String(tree.tree_id);
      for (const body of [
        { type: 'planting', note: 'giống Ri6' },
        { type: 'care', action: 'fertilising' },
        { type: 'care', action: 'harvest' },
      ])
        await apiCall(base, 'POST', `/api/tree/${id}/event`, { token: grower.token, json: body });
      const pub = await apiCall(base, 'POST', `/api/tree/${id}/publish`, { token: grower.token });
      const code = String(pub.json.code ?? tree.code);
      const { ctx, page } = await phone(browser);

      clock.start();
      await page.goto(`${base}/t/${encodeURIComponent(code)}`);
      await page.locator('main h1, h1').first().waitFor({ timeout: 30_000 });
      await appears(page.locator('main img'), 10_000);
      await loadWholePage(page);
      const species = (await text(page.locator('dd.species'))) || /(?:^|\n)Loài\s*\n\s*([^\n]+)/.exec(await mainText(page))?.[1] || '';
      const alts = await page.evaluate<string[]>('[...document.querySelectorAll("main img")].map((i) => i.getAttribute("alt") ?? "")');
      // innerText leaves out what a closed <details> (the verifiers' proof) holds.
      const plain = await mainText(page);
      const wide = await overflow(page);
      return {
        page,
        close: [ctx],
        fullPage: true,
        note:
          `species: ${species ? `"${clip(species, 40)}"` : `no species line (${/durian/i.test(plain) ? '"durian" as a code' : 'not named'})`}; ` +
          `${alts.length} photo(s), alt text ${alts.some((a) => CID.test(a)) ? 'with a CID' : 'in words'} ("${clip(
            (alts.find((a) => CID.test(a)) ?? alts[0] ?? '').replace(CID, (m: string) => `${m.slice(0, 8)}…`),
            60,
          )}"); ` +
          `unfolded text: ${CID.test(plain) ? 'CIDs' : 'no CID'}, ${/\d+\.\d+°/.test(plain) ? 'coordinates' : 'no coordinates'}` +
          `${/\b(harvest|fertilising|planting)\b/.test(plain) ? ', raw event codes (harvest, planting…)' : ''}; ` +
          (wide > 0 ? `${wide}px wider than the phone` : 'fits the phone'),
      };
    },
  },
  {
    n: 9,
    slug: 'review-query-in-view',
    item: 'Review on a phone keeps the query photo in view beside the candidates',
    async run({ base, browser }, clock) {
      const owner = await account(base, 'review');
      const tall = async (seed: number) =>
        sharp(await textureImage(seed, 640))
          .extract({ left: 0, top: 0, width: 320, height: 640 })
          .jpeg({ quality: 90 })
          .toBuffer();
      const peels: Buffer[] = [];
      for (let i = 0; i < 5; i++) {
        peels.push(await tall(5300 + i));
        await enrol(base, owner, '/api/fruit/enroll', [peels[i]!], { species: 'apple', name: `Táo ${i + 1}` });
      }
      // Queries the engine cannot settle: two fruit's photos as one fruit, and a fruit never enrolled.
      const left: string[] = [];
      for (const q of [[peels[0]!, peels[1]!], [await tall(5310)], [peels[2]!, peels[3]!]]) {
        const r = await apiCall(base, 'POST', '/api/fruit/identify', { token: owner.token, body: form(q) });
        left.push(String(r.json.verdict ?? r.status));
      }
      const { ctx, page } = await phone(browser);
      await signIn(page, base, owner);

      clock.start();
      await page.goto(`${base}/#/review`);
      const item = page.locator('article.review-item').first();
      if (!(await appears(item, 30_000))) {
        return { page, close: [ctx], note: `review queue empty (identify answers: ${left.join(', ')})` };
      }
      await photosLoaded(page, 'article.review-item', 20_000);
      const candidates = item.locator('figure.candidate');
      const n = await candidates.count();
      // The last candidate, its photo and its button, at the bottom of the screen, as a thumb scrolls to it.
      await page.evaluate(`(() => {
        const all = document.querySelectorAll('article.review-item')[0].querySelectorAll('figure.candidate');
        const last = all[all.length - 1];
        if (last) window.scrollBy(0, last.getBoundingClientRect().bottom - innerHeight + 8);
      })()`);
      await page.waitForTimeout(300);
      await photosLoaded(page, 'article.review-item', 10_000);
      const queryImg = item.locator('figure.query img, .pair > figure img');
      const query = (await queryImg.count()) ? await queryImg.first().boundingBox() : null;
      const headerBottom = await page.evaluate<number>('(document.querySelector("header")?.getBoundingClientRect().bottom) ?? 0');
      const inView = !!query && query.y >= headerBottom - 1 && query.y + query.height <= PHONE.height && query.height > 40;
      const captions = (await candidates.locator('figcaption').allInnerTexts()).map((c) => clip(c, 40));
      return {
        page,
        close: [ctx],
        note:
          `${n} candidate(s); scrolled to the last one: the query photo ${inView ? 'still in view' : 'out of view'}` +
          (captions.length ? `; captions: ${captions.slice(0, 3).join(' | ')}` : ''),
      };
    },
  },
  {
    n: 10,
    slug: 'unfinished-spots',
    item: 'Unfinished spots: file fields in Vietnamese, tabs for a packing house, heading follows a rename',
    async run({ base, browser }, clock) {
      // A herd owner whose cow is renamed, and a packing house with fruit only.
      const herd = await account(base, 'rename');
      const shots = await Promise.all([1, 2, 3].map((k) => textureImage(6200 + k, 480)));
      const cow = await enrol(base, herd, '/api/animal/enroll', shots, {
        species: 'cattle',
        farm_id: 'farm-r',
        name: 'Bông',
        accept_warnings: 'true',
      });
      const packer = await account(base, 'packer');
      for (let i = 0; i < 2; i++)
        await enrol(base, packer, '/api/fruit/enroll', [await textureImage(6300 + i, 320)], { species: 'apple', name: `Táo ${i + 1}` });
      const a = await phone(browser);
      await signIn(a.page, base, herd);
      const b = await phone(browser);
      await signIn(b.page, base, packer);

      clock.start();
      // The rename, on the cow's page.
      await a.page.goto(`${base}/#/animal/${encodeURIComponent(String(cow.animal_did ?? cow.animal_id))}`);
      let heading = 'no rename form';
      if (await appears(a.page.locator('form[name=rename] input[name=name]'), 30_000)) {
        await a.page.fill('form[name=rename] input[name=name]', 'Bông Lúa');
        const renamed = a.page.waitForResponse((r) => r.request().method() === 'POST' && /rename/.test(new URL(r.url()).pathname), {
          timeout: 30_000,
        });
        await a.page.locator('form[name=rename] button[type=submit]').click();
        await renamed.catch(() => undefined);
        await appears(a.page.locator('form[name=rename] .notice'), 5_000, 'visible');
        heading = `heading after renaming Bông to "Bông Lúa": "${await text(a.page.locator('h2'))}"`;
      }
      const addLabel = a.page.locator('label', { has: a.page.locator('input[name=add-photos]') });
      const addField = (await addLabel.count()) ? clip(await addLabel.first().innerText(), 60) : '';
      // The packing house's tabs and its batch form's file fields.
      await b.page.goto(`${base}/#/batch`);
      const files = b.page.locator('form[name=batch] input[name=files]');
      await files.waitFor({ state: 'attached', timeout: 30_000 });
      await files.setInputFiles([jpeg('apple-1.jpg', await textureImage(7101, 480)), jpeg('apple-2.jpg', await textureImage(7102, 480))]);
      const width = (await files.boundingBox())?.width ?? 0;
      const fileLabel = b.page.locator('form[name=batch] label', { has: b.page.locator('input[name=files]') });
      const label = (await fileLabel.count()) ? clip(await fileLabel.first().innerText(), 60) : '';
      const order = await tabs(b.page);
      return {
        page: b.page,
        close: [a.ctx, b.ctx],
        note:
          `packing-house tabs: ${order.join(', ')}; photo field ${width > 1 ? `the browser's own input (${Math.round(width)}px wide)` : 'a labelled button'}` +
          `${label ? ` "${label}"` : ''} after choosing 2; cow page add-photos field "${addField || 'unlabelled'}"; ${heading}`,
      };
    },
  },
];

// ---------------------------------------------------------------------------------------------

/**
 * The phone's screen, or the whole page for a long one (its sticky header then drawn once, at the
 * top, not over the middle of the picture); re-encoded with fewer colours while over MAX_PNG.
 */
async function screenshot(page: Page, file: string, fullPage: boolean): Promise<number> {
  if (fullPage) await page.addStyleTag({ content: 'header { position: static !important; }' }).catch(() => undefined);
  const raw = await page.screenshot({ fullPage });
  let png = raw;
  for (const colours of [128, 64, 32, 16]) {
    if (png.length <= MAX_PNG) break;
    png = await sharp(raw).png({ palette: true, colours, effort: 10, compressionLevel: 9 }).toBuffer();
  }
  writeFileSync(file, png);
  return png.length;
}

/** Scrolls `selector` to just below the sticky header. */
async function scrollUnderHeader(page: Page, selector: string): Promise<void> {
  await page.evaluate(`(() => {
    const el = document.querySelector(${JSON.stringify(selector)});
    const header = document.querySelector('header');
    if (el) window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - (header ? header.getBoundingClientRect().height : 0) - 8);
  })()`);
}

async function drive(base: string, out: string, label: string, only: Set<number> | null): Promise<void> {
  mkdirSync(out, { recursive: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  const version = browser.version();
  const results: Record<string, unknown>[] = [];
  try {
    for (const s of scenarios) {
      if (only && !only.has(s.n)) continue;
      const nn = String(s.n).padStart(2, '0');
      const file = `${label}-${nn}-${s.slug}.png`;
      let t0 = 0;
      const clock = { start: () => (t0 = performance.now()) };
      let row: Record<string, unknown>;
      try {
        const o = await s.run({ base, browser }, clock);
        const ms = Math.round(performance.now() - (t0 || performance.now()));
        const bytes = await screenshot(o.page, path.join(out, file), o.fullPage ?? false);
        for (const c of o.close) await c.close();
        row = { item: s.n, slug: s.slug, title: s.item, ms, note: o.note, screenshot: file, bytes };
      } catch (e) {
        const ms = t0 ? Math.round(performance.now() - t0) : null;
        row = { item: s.n, slug: s.slug, title: s.item, ms, note: `scenario failed: ${clip((e as Error).message, 300)}`, screenshot: null };
        for (const ctx of browser.contexts()) {
          const p = ctx.pages()[0];
          if (p && !row.screenshot) {
            row.screenshot = file;
            row.bytes = await screenshot(p, path.join(out, file), false).catch(() => 0);
          }
          await ctx.close();
        }
      }
      results.push(row);
      console.log(`${label} ${nn} ${s.slug}: ${String(row.ms)} ms — ${String(row.note)}`);
    }
  } finally {
    await browser.close();
  }
  writeFileSync(
    path.join(out, `${label}.json`),
    JSON.stringify(
      {
        label,
        url: base,
        date: new Date().toISOString(),
        viewport: { ...PHONE, isMobile: true, hasTouch: true, locale: 'vi-VN' },
        chromium: version,
        machine: machineInfo('local, 2 shared CPU cores'),
        scenarios: results,
      },
      null,
      2,
    ) + '\n',
  );
}

const args = parseArgs(process.argv.slice(2));
if (args.has('serve')) await serve(args.get('serve')!);
else {
  const url = args.get('url');
  const out = args.get('out');
  const label = args.get('label');
  if (!url || !out || (label !== 'before' && label !== 'after'))
    throw new Error('usage: --url <base URL> --out <dir> --label before|after [--only 1,2,…]  |  --serve <repository root>');
  const only = args.has('only') ? new Set(args.get('only')!.split(',').map(Number)) : null;
  await drive(url.replace(/\/$/, ''), out, label, only);
}
