/**
 * What the browser specs (test/e2e files importing playwright-core) share: Debian's Chromium
 * (scripts/setup.sh installs it; playwright-core downloads no browser), the built web app, and
 * signing up or in through the app's own form with the test password.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The password every test account is made with (support/app.ts `signup` uses it too). */
export const PASSWORD = 'Bark-and-peel-42';
/** The kind chooser's labels in Vietnamese, the app's first language. */
export const KIND_LABELS = { tree: 'Cây', fruit: 'Quả', animal: 'Vật nuôi' } as const;

/** `npm test` builds the app first; a single spec run builds it when `marker` is missing. */
export function ensureWebBuilt(marker = 'web/dist/main.js'): void {
  if (!existsSync(marker)) execFileSync(process.execPath, ['web/build.mjs'], { stdio: 'inherit' });
}

/** Headless Debian Chromium; `args` are more command-line switches (a fake camera, say). */
export function launchChromium(args: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', ...args] });
}

/** The two sizes the app is driven at: a phone's screen and a desktop window. */
export const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;

/** A fresh context (touch at phone size, Vietnamese like a shopper's phone) and its one page. */
export async function newPage(browser: Browser, size: keyof typeof SIZES): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({
    viewport: SIZES[size],
    isMobile: size === 'phone',
    hasTouch: size === 'phone',
    locale: 'vi-VN',
  });
  return { ctx, page: await ctx.newPage() };
}

/**
 * On the sign-in form already shown: fills `username` and the test password, presses sign up or
 * sign in, and waits until the header names the account.
 */
export async function submitSignIn(page: Page, username: string, action: 'signup' | 'login'): Promise<void> {
  await page.fill('input[name=username]', username);
  await page.fill('input[name=password]', PASSWORD);
  await page.click(`button[name=${action}]`);
  await page.locator('header .user', { hasText: username }).waitFor({ timeout: 30_000 });
}

/** Opens `url` (the sign-in form, signed out) and makes the account `username` there. */
export async function signUpInApp(page: Page, url: string, username: string): Promise<void> {
  await page.goto(url);
  await submitSignIn(page, username, 'signup');
}

/** Opens `url` (the sign-in form, signed out) and signs `who` in there. */
export async function signInInApp(page: Page, url: string, who: { username: string }): Promise<void> {
  await page.goto(url);
  await submitSignIn(page, who.username, 'login');
}

/** Opens `url` with `who` signed in: nothing to do if they already are, whoever else is signs out first. */
export async function switchAccount(page: Page, url: string, who: { username: string }): Promise<void> {
  await page.goto(url);
  await page.locator('input[name=username], header .who .user').first().waitFor({ timeout: 30_000 });
  if (await page.locator('header .who .user').count()) {
    if ((await page.locator('header .who .user').textContent()) === who.username) return;
    await page.locator('button[name=signout]').click();
  }
  await submitSignIn(page, who.username, 'login');
}

/** Picks the kind (tree, fruit or animal) in the chooser of the form `form`, by its label. */
export async function chooseKind(page: Page, form: string, kind: keyof typeof KIND_LABELS): Promise<void> {
  await page.locator(`${form} fieldset.segmented label`, { hasText: KIND_LABELS[kind] }).click();
}
