/**
 * The app's service worker: the shell (the page, its modules, styles and icons) is served from a
 * cache when there is no network, so the app opens in a field without signal. API calls are never
 * cached here: writes taken offline wait in the page's own queue (offline.ts), which sends them,
 * with their Idempotency-Key, when the network returns.
 */
// Typed loosely: the web build's lib is DOM, whose `self` is a Window, not a worker scope.
type Ev = Event & { waitUntil(p: Promise<unknown>): void; respondWith(r: Promise<Response>): void; request: Request };
const sw = self as unknown as {
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  location: Location;
  addEventListener(t: string, f: (e: Ev) => void): void;
};
/**
 * Every file of the built app and a version that changes with their bytes, written in by
 * web/build.mjs. All of them are cached at install: with only `main.js` kept, a first reload
 * without signal hung on "Đang tải…" at its first import (issue 39).
 */
const BUILD = JSON.parse('__MARKLESS_BUILD__') as { version: string; files: string[] };
const CACHE = `markless-shell-${BUILD.version}`;
const SHELL = ['/', '/manifest.webmanifest', ...BUILD.files.map((f) => `/app/${f}`)];

sw.addEventListener('install', (e) => {
  e.waitUntil(
    caches
      .open(CACHE)
      .then((c) => c.addAll(SHELL))
      .then(() => sw.skipWaiting()),
  );
});
sw.addEventListener('activate', (e) => {
  e.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => sw.clients.claim()),
  );
});

/** The paths the app's page is served at (api/src/routes/web-app.route.ts): offline, each opens the cached page. */
const PAGES = ['/', '/TreeIdentity', '/TreeIdentity/', '/identify', '/Identify'];
const isShell = (url: URL) =>
  url.origin === sw.location.origin && (url.pathname.startsWith('/app/') || SHELL.includes(url.pathname) || PAGES.includes(url.pathname));

/** Network first (a new build is picked up at once), the cached copy when the network fails. */
sw.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== 'GET' || !isShell(url)) return;
  e.respondWith(
    fetch(e.request)
      .then((res) => {
        if (res.ok) {
          const copy = res.clone();
          void caches.open(CACHE).then((c) => c.put(e.request, copy));
        }
        return res;
      })
      .catch(
        async () =>
          // ignoreVary: the server answers `Vary: Origin`, and a module's request carries headers the install's did not.
          (await caches.match(e.request, { ignoreSearch: true, ignoreVary: true })) ??
          // A page opened at any of its paths is the one page; a missing module stays an error, never the page.
          (e.request.mode === 'navigate' ? await caches.match('/', { ignoreVary: true }) : undefined) ??
          Response.error(),
      ),
  );
});
