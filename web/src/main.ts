import { call, onRateWait, onUnauthorized, sendQueued } from './api.js';
import { count, onQueueChange } from './offline.js';
import { h, mount, notice } from './dom.js';
import { currentLang, setLang, t, type TextKey } from './i18n.js';
import { authView } from './view-auth.js';
import { batchView } from './view-batch.js';
import { enrolView } from './view-enrol.js';
import { animalView, fruitView, treeView } from './view-entity.js';
import { identifyView } from './view-identify.js';
import { mineView } from './view-mine.js';
import { populationView } from './view-population.js';
import { surveyView } from './view-survey.js';
import { fruitListView } from './view-fruit-list.js';
import { shopView } from './view-shop.js';
import { onReviewCount, reviewCount, reviewView } from './view-review.js';
import { forgetAccount, learnFarms } from './pickers.js';

/**
 * The field app: one page, hash routes (#/identify, #/enrol, #/mine, #/tree/{id}, #/population,
 * #/batch), so it works the same at all four paths it is served from.
 */
const root = document.getElementById('app')!;
let username: string | null = null;

/**
 * Offline (issue 39): who is signed in on this device and the screen they were on, kept so the app
 * reopens without signal where they left it instead of on the sign-in form. Only the name and the
 * route: the session itself stays in its HttpOnly cookie, and the server still decides every call.
 */
const ACCOUNT_KEY = 'markless.account';
const ROUTE_KEY = 'markless.route';
const remembered = (k: string): string | null => {
  try {
    return localStorage.getItem(k);
  } catch {
    return null;
  }
};
function remember(k: string, v: string | null): void {
  try {
    if (v) localStorage.setItem(k, v);
    else localStorage.removeItem(k);
  } catch {
    // Storage refused (private mode, full): the app still works online.
  }
}
/** True while the app runs on the remembered account because the server could not be reached. */
let offline = false;

type Kind = 'tree' | 'fruit' | 'animal';
/** Each tab, and the kind it serves when it serves only one (the herd and survey tabs: animals; the batch: fruit). */
const TABS: Array<[string, TextKey, Kind?]> = [
  ['identify', 'nav_identify'],
  ['enrol', 'nav_enrol'],
  ['mine', 'nav_mine'],
  ['population', 'nav_population', 'animal'],
  ['batch', 'nav_batch', 'fruit'],
  ['survey', 'nav_survey', 'animal'],
  ['review', 'nav_review'],
];

/**
 * How many of each kind the account owns (GET /api/me `kinds`), kept on the device so the tabs
 * come in the same order offline; null until known (a new account: every tab in the usual order).
 */
const KINDS_KEY = 'markless.kinds';
let kinds: Record<Kind, number> | null = (() => {
  try {
    return JSON.parse(remembered(KINDS_KEY) ?? 'null') as Record<Kind, number> | null;
  } catch {
    return null;
  }
})();
function learnKinds(k: Record<Kind, number> | undefined): void {
  kinds = k ?? null;
  remember(KINDS_KEY, k ? JSON.stringify(k) : null);
}

/**
 * The tabs in the order this account uses them (issue 39): the tabs of the kinds it owns right
 * after "identify", most-owned kind first; the tabs of kinds it owns none of last, drawn quieter.
 * An account that owns nothing yet sees every tab in the usual order.
 */
function tabOrder(k: Record<Kind, number> | null): { shown: typeof TABS; folded: typeof TABS } {
  if (!k || !(k.tree + k.fruit + k.animal)) return { shown: TABS, folded: [] };
  const used = TABS.filter(([, , kind]) => kind && k[kind] > 0).sort((a, b) => k[b[2]!] - k[a[2]!]);
  const general = TABS.filter(([, , kind]) => !kind);
  return { shown: [general[0]!, ...used, ...general.slice(1)], folded: TABS.filter(([, , kind]) => kind && !k[kind]) };
}

async function viewFor(route: string): Promise<HTMLElement> {
  const [name, arg = ''] = route.split('/');
  const id = decodeURIComponent(arg);
  switch (name) {
    case 'enrol':
      return enrolView(id === 'animal' || id === 'fruit' ? id : 'tree');
    case 'mine':
      return mineView();
    case 'tree':
      return treeView(id);
    case 'fruit':
      return fruitView(id);
    case 'animal':
      return animalView(id);
    case 'population':
      return populationView();
    case 'batch':
      return batchView();
    case 'survey':
      return surveyView();
    case 'review':
      return reviewView();
    case 'fruits':
      return fruitListView();
    default:
      return identifyView();
  }
}

const waitBanner = h('div', { class: 'wait', hidden: true, role: 'status' });
onRateWait((s) => {
  waitBanner.hidden = s === null;
  waitBanner.textContent = s === null ? '' : t('waiting_retry', { s });
});
onUnauthorized(() => {
  username = null;
  remember(ACCOUNT_KEY, null);
  void render();
});

// The review tab's count: answers awaiting a decision, refreshed on each screen and after each decision.
const reviewBadge = h('span', { class: 'badge alert count', hidden: true, 'aria-label': '' });
function showReviewCount(n: number | null) {
  reviewBadge.hidden = !n;
  reviewBadge.textContent = n ? String(n) : '';
}
onReviewCount(showReviewCount);

function header(): HTMLElement {
  const current = location.hash.replace(/^#\//, '').split('/')[0] || 'identify';
  return h(
    'header',
    {},
    h(
      'div',
      { class: 'bar' },
      h('h1', {}, h('a', { href: '#/identify' }, t('app_title'))),
      h(
        'button',
        {
          type: 'button',
          class: 'link lang',
          name: 'lang',
          onclick: () => {
            setLang(currentLang() === 'vi' ? 'en' : 'vi');
            void render();
          },
        },
        t('language'),
      ),
      username
        ? h(
            'span',
            { class: 'who' },
            h('span', { class: 'user', title: t('signed_in_as') }, username),
            h('button', { type: 'button', class: 'link', name: 'signout', onclick: signOut }, t('sign_out')),
          )
        : null,
    ),
    username ? nav(current) : null,
  );
}

function nav(current: string): HTMLElement {
  const { shown, folded } = tabOrder(kinds);
  const tab = ([r, k]: (typeof TABS)[number], later = false) =>
    h(
      'a',
      { href: `#/${r}`, class: [current === r ? 'active' : '', later ? 'later' : ''].filter(Boolean).join(' ') },
      t(k),
      r === 'review' ? reviewBadge : null,
    );
  return h(
    'nav',
    {},
    shown.map((x) => tab(x)),
    folded.map((x) => tab(x, true)),
  );
}

/** The sticky header's height, for what is pinned under it (the review's query photo, app.css). */
const headerHeight = new ResizeObserver((entries) => {
  for (const e of entries) document.documentElement.style.setProperty('--header-h', `${(e.target as HTMLElement).offsetHeight}px`);
});

/** Ask the account's counts again; when the tab order changes, the nav is drawn anew. */
async function refreshTabs(top: HTMLElement): Promise<void> {
  const before = JSON.stringify(tabOrder(kinds));
  const r = await call('GET', '/api/me').catch(() => null);
  if (!r?.ok) return;
  learnKinds(r.json.kinds);
  const old = top.querySelector('nav');
  if (old && JSON.stringify(tabOrder(kinds)) !== before)
    old.replaceWith(nav(location.hash.replace(/^#\//, '').split('/')[0] || 'identify'));
}

async function signOut() {
  await call('POST', '/api/logout');
  forgetAccount();
  remember(ACCOUNT_KEY, null);
  remember(ROUTE_KEY, null);
  learnKinds(undefined);
  username = null;
  location.hash = '#/identify';
  void render();
}

async function render() {
  document.title = t('app_title');
  const main = h('main', {}, notice('info', t('working')));
  const top = header();
  mount(root, top, waitBanner, main);
  headerHeight.disconnect();
  headerHeight.observe(top);
  const route = location.hash.replace(/^#\//, '') || 'identify';
  // A shopper's fruit lookup needs no account: it is the one screen shown signed out.
  if (route.split('/')[0] === 'shop') {
    return mount(
      main,
      shopView(),
      username ? null : h('p', { class: 'row' }, h('a', { href: '#/identify', class: 'button secondary' }, t('shop_back'))),
    );
  }
  if (!username) {
    return mount(
      main,
      offline ? h('div', { class: 'offline-mode' }, notice('warn', t('offline_no_account'))) : null,
      authView((u) => {
        username = u;
        remember(ACCOUNT_KEY, u);
        // The account's farms, so a new device starts on the latest one.
        void call('GET', '/api/me')
          .then((r) => {
            if (!r.ok) return;
            learnFarms(r.json.farms ?? []);
            learnKinds(r.json.kinds);
          })
          .finally(() => void render());
      }),
    );
  }
  remember(ROUTE_KEY, route);
  if (!offline)
    void reviewCount()
      .then(showReviewCount)
      .catch(() => undefined);
  // The tab order follows what the account owns: asked again while it owns nothing yet, and on "mine".
  if (!offline && (route === 'mine' || !kinds || !(kinds.tree + kinds.fruit + kinds.animal))) void refreshTabs(top);
  mount(main, offline ? h('div', { class: 'offline-mode' }, notice('warn', t('offline_mode'))) : null, await viewFor(route));
}

/**
 * Who is signed in, from the server. Without signal (status 0) the account last signed in on this
 * device carries on, on the screen it was on when the app is opened without one; every other
 * answer is the server's word (a 401 is the sign-in form). Answers whether the server answered.
 */
async function whoAmI(): Promise<boolean> {
  const r = await call('GET', '/api/me');
  if (r.status === 0) {
    offline = true;
    username = remembered(ACCOUNT_KEY);
    const last = remembered(ROUTE_KEY);
    if (username && last && !location.hash.replace(/^#\/?/, '')) history.replaceState(null, '', `#/${last}`);
    return false;
  }
  offline = false;
  username = r.ok ? (r.json.account?.username ?? r.json.username ?? null) : null;
  remember(ACCOUNT_KEY, username);
  if (r.ok) {
    learnFarms(r.json.farms ?? []);
    learnKinds(r.json.kinds);
  }
  return true;
}

/** Back online: ask the server again and carry on where the person is (the same route, now with its data). */
let reconnecting = false;
async function reconnect(): Promise<void> {
  if (!offline || reconnecting) return;
  reconnecting = true;
  try {
    if (await whoAmI()) await render();
  } finally {
    reconnecting = false;
  }
}
// The browser's `online` event, and a look every 10 s in case it never comes (a captive network, an emulator).
window.addEventListener('online', () => void reconnect());
setInterval(() => void reconnect(), 10_000);

window.addEventListener('hashchange', () => void render());

// Offline: the shell comes from the service worker's cache; writes taken without signal wait in
// the queue (offline.ts), counted on screen, and go out when the network returns.
const offlineBanner = h('div', { class: 'offline-queue', hidden: true, role: 'status' });
document.body.append(offlineBanner);
onQueueChange((n) => {
  offlineBanner.hidden = n === 0;
  offlineBanner.textContent = n ? t('offline_waiting', { n }) : '';
});
async function sendWaiting() {
  const n = await sendQueued().catch(() => 0);
  if (n) {
    offlineBanner.hidden = false;
    offlineBanner.textContent = t('offline_sent', { n });
  }
}
window.addEventListener('online', () => void sendWaiting());
void count()
  .then((n) => {
    if (n && navigator.onLine) void sendWaiting();
    else if (n) {
      offlineBanner.hidden = false;
      offlineBanner.textContent = t('offline_waiting', { n });
    }
  })
  .catch(() => undefined);
if ('serviceWorker' in navigator) void navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => undefined);
setLang(currentLang());
// The session lives in an HttpOnly cookie: ask the server who we are instead of holding a token.
void whoAmI().then(() => render());
