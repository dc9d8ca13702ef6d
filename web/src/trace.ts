import { blobUrl, h, mount, notice } from './dom.js';
import { currentLang, setLang, t, type Lang } from './i18n.js';
import { speciesName } from './species.js';
import { proofDetails } from './trace-proof.js';
import { day, storyList, type Activity } from './trace-story.js';

/**
 * The public page of a traceability code, `/t/{code}`. The server already decided the code is
 * public or restricted (an unknown code never reaches this script); this renders what
 * `/api/resolve/{code}` says, and nothing it does not.
 *
 * For a shopper first (issue 39 item 8): the photos, the species in words, the province, the
 * grower's public name and the story in plain sentences. The proof (anchor, chain, key, CIDs,
 * the geohash cell) is folded under "for verifiers" (trace-proof.ts).
 */
const root = document.getElementById('trace')!;
const code = decodeURIComponent(location.pathname.replace(/^\/t\//, ''));
/** Read as the public reads it: no cookie, so a signed-in owner sees the page a shopper sees. */
const publicApi = (path: string) =>
  fetch(path, { headers: { 'Accept-Language': currentLang() }, credentials: 'omit' })
    .then((r) => (r.ok ? r.json() : null))
    .catch(() => null);
const ownApi = (path: string) =>
  fetch(path, { headers: { 'Accept-Language': currentLang() }, credentials: 'same-origin' })
    .then((r) => (r.ok ? r.json() : null))
    .catch(() => null);

const row = (cls: string, label: string, ...value: Array<Node | string | null>) => [h('dt', {}, label), h('dd', { class: cls }, ...value)];
type Words = { vi: string; en: string };
const say = (w: Words) => w[currentLang()];

/** The language a first visit gets: the one chosen on this device, else the browser's, else Vietnamese. */
function firstLang(): Lang {
  const chosen = localStorage.getItem('markless.lang');
  if (chosen === 'vi' || chosen === 'en') return chosen;
  for (const l of navigator.languages ?? [navigator.language]) {
    if (/^vi\b/i.test(l)) return 'vi';
    if (/^en\b/i.test(l)) return 'en';
  }
  return 'vi';
}

function header(title: string): HTMLElement {
  const lang = h(
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
  );
  return h('header', {}, h('div', { class: 'bar' }, h('h1', {}, title), lang));
}

/** Where the tree grows, in words: never more precise than the province the code's cell lies in. */
function placeWords(r: { has_location?: boolean; place?: { province: Words; region: Words } | null }): string {
  if (r.has_location === false) return t('place_unknown');
  if (!r.place) return t('place_abroad');
  return t('place_area', { province: say(r.place.province), region: say(r.place.region) });
}

async function render() {
  document.documentElement.lang = currentLang();
  // The server put the same answer as /api/resolve/{code} into the page; fetch it only if absent.
  const embedded = document.getElementById('page-data')?.textContent;
  const r = embedded ? JSON.parse(embedded) : await publicApi(`/api/resolve/${encodeURIComponent(code)}`);
  if (!r) return mount(root, header(t('trace_title')), h('main', {}, notice('error', t('trace_not_found'))));
  if (r.state === 'restricted') return mount(root, header(t('trace_title')), h('main', {}, await restrictedCard(r)));
  const rec = r.record;
  const species = r.species_name ? say(r.species_name) : (await speciesName(rec.species === 'unknown' ? null : rec.species)) || '';
  const [tl, catalog] = await Promise.all([
    r.tree_id ? publicApi(`/api/tree/${encodeURIComponent(r.tree_id)}/timeline`) : null,
    publicApi('/api/species/catalog'),
  ]);
  const title = r.name ?? (species || t('trace_title'));
  document.title = `${title} · ${t('trace_title')}`;
  const images = rec.images as string[];
  // Alt text says what the photo shows, in words; the CIDs are in the proof.
  const what = r.name && species ? `${r.name} (${species})` : title;
  const alt = (i: number) => t('photo_alt', { n: i + 1, total: images.length, what });
  mount(
    root,
    header(title),
    h(
      'main',
      {},
      h(
        'section',
        { class: 'card buyer' },
        images[0] ? h('img', { class: 'hero', src: blobUrl(images[0]), alt: alt(0) }) : null,
        h(
          'div',
          { class: 'gallery' },
          images.map((cid, i) => h('img', { src: blobUrl(cid), alt: alt(i), loading: 'lazy' })),
        ),
        h(
          'dl',
          { class: 'facts' },
          row('species', t('species'), species || t('species_unknown')),
          row('place', t('grown_in'), placeWords(r)),
          r.grower_name ? row('grower', t('grower'), r.grower_name) : null,
          row('enrolled', t('enrolled_on'), day(rec.created_at)),
        ),
        r.place ? h('p', { class: 'hint' }, t('place_note')) : null,
        await ownerAnchor(r),
      ),
      h(
        'section',
        { class: 'card story' },
        h('h2', {}, t('story')),
        tl ? storyList(tl.events, (catalog?.activities ?? []) as Activity[]) : h('p', { class: 'hint' }, t('story_empty')),
      ),
      proofDetails(r, tl ? { ok: tl.chain_ok, n: tl.events.length } : null),
    ),
  );
}

/** A code whose owner shares a summary only: the species and the day, no photos, no place. */
async function restrictedCard(r: { summary: { species: string | null; enrolled_on: string; record_hash: string; anchored: boolean } }) {
  const s = r.summary;
  return h(
    'section',
    { class: 'card' },
    h('p', {}, t('trace_restricted')),
    h(
      'dl',
      { class: 'facts' },
      row('species', t('species'), (await speciesName(s.species === 'unknown' ? null : s.species)) || t('species_unknown')),
      row('enrolled', t('enrolled_on'), day(s.enrolled_on)),
    ),
    h(
      'details',
      { class: 'card verifiers' },
      h('summary', {}, t('for_verifiers')),
      h(
        'dl',
        {},
        row('', t('record_hash'), h('code', { class: 'token' }, s.record_hash)),
        row('', t('anchor'), s.anchored ? '✓' : t('anchor_none')),
      ),
    ),
  );
}

/** The owner, signed in on this device, may anchor the tree's chain from its public page. */
async function ownerAnchor(r: { tree_id?: string; anchor?: unknown }): Promise<HTMLElement | null> {
  if (!r.tree_id || r.anchor) return null;
  const mine = await ownApi('/api/trees');
  if (!(mine?.trees as { tree_id: string }[] | undefined)?.some((x) => x.tree_id === r.tree_id)) return null;
  const msg = h('span', { 'aria-live': 'polite' });
  return h(
    'p',
    { class: 'row wrap' },
    h(
      'button',
      {
        type: 'button',
        class: 'primary',
        name: 'anchor',
        onclick: async () => {
          const tl = await ownApi(`/api/tree/${encodeURIComponent(r.tree_id!)}/timeline`);
          const last = (tl?.events as { event_id: string; inherited_from?: unknown }[] | undefined)
            ?.filter((e) => !e.inherited_from)
            .at(-1);
          const res = last
            ? await fetch(`/api/tree/${encodeURIComponent(r.tree_id!)}/event/${encodeURIComponent(last.event_id)}/anchor`, {
                method: 'POST',
                headers: { 'Accept-Language': currentLang(), 'Idempotency-Key': crypto.randomUUID() },
                credentials: 'same-origin',
              }).catch(() => null)
            : null;
          if (res?.ok) location.reload();
          else mount(msg, notice('error', t('network_error')));
        },
      },
      t('anchor_now'),
    ),
    msg,
  );
}

setLang(firstLang());
void render();
