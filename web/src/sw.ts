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
const CACHE = 'markless-shell-v1';
const SHELL = ['/', '/app/main.js', '/app/base.css', '/app/app.css', '/app/icon.svg', '/manifest.webmanifest'];

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

const isShell = (url: URL) =>
  url.origin === sw.location.origin &&
  (url.pathname.startsWith('/app/') || SHELL.includes(url.pathname) || url.pathname === '/TreeIdentity');

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
      .catch(async () => (await caches.match(e.request)) ?? (await caches.match('/')) ?? Response.error()),
  );
});
