import { blobUrl, h, mount, notice } from './dom.js';
import { currentLang, setLang, t } from './i18n.js';
import { cellMap } from './geohash.js';
import { timelineList, when } from './timeline.js';
import { speciesName } from './species.js';

/**
 * The public page of a traceability code, `/t/{code}`. The server already decided the code is
 * public or restricted (an unknown code never reaches this script); this renders what
 * `/api/resolve/{code}` says, and nothing it does not.
 */
const root = document.getElementById('trace')!;
const code = decodeURIComponent(location.pathname.replace(/^\/t\//, ''));
const api = (path: string) =>
  fetch(path, { headers: { 'Accept-Language': currentLang() } })
    .then((r) => (r.ok ? r.json() : null))
    .catch(() => null);

const row = (label: string, ...value: Array<Node | string>) => [h('dt', {}, label), h('dd', {}, ...value)];

/** What the anchor really is, in words: a key of this server, or a Cardano transaction. */
export function anchorWords(a: Record<string, any> | null): HTMLElement {
  if (!a) return h('span', { class: 'anchor-words' }, t('anchor_none'));
  // The server's own sentence (`text: {vi, en}`) says it best; the fields below are the fallback.
  const said = a.text?.[currentLang()];
  const fp = a.fingerprint ?? a.key_fingerprint ?? a.public_key_fingerprint;
  const text =
    typeof said === 'string'
      ? said
      : a.backend === 'local'
        ? fp
          ? t('anchor_local_fp', { fp })
          : t('anchor_local')
        : a.backend === 'cardano'
          ? t('anchor_cardano', { tx: a.tx_hash ?? '—', n: a.confirmations ?? 0 })
          : `${a.backend}`;
  const link =
    a.explorer_url && /^https:\/\//.test(a.explorer_url)
      ? h('a', { href: a.explorer_url, rel: 'noopener noreferrer' }, t('view_tx'))
      : null;
  return h('span', { class: 'anchor-words' }, text, ' ', h('small', {}, t('anchor_status', { s: a.status })), ' ', link);
}

async function render() {
  document.documentElement.lang = currentLang();
  // The server put the same answer as /api/resolve/{code} into the page; fetch it only if absent.
  const embedded = document.getElementById('page-data')?.textContent;
  const r = embedded ? JSON.parse(embedded) : await api(`/api/resolve/${encodeURIComponent(code)}`);
  const lang = h(
    'button',
    {
      type: 'button',
      class: 'link lang',
      onclick: () => {
        setLang(currentLang() === 'vi' ? 'en' : 'vi');
        void render();
      },
    },
    t('language'),
  );
  const head = h('header', {}, h('div', { class: 'bar' }, h('h1', {}, `${t('trace_title')} · ${code}`), lang));
  if (!r) return mount(root, head, h('main', {}, notice('error', t('trace_not_found'))));
  if (r.state === 'restricted') {
    return mount(
      root,
      head,
      h(
        'main',
        {},
        h(
          'section',
          { class: 'card' },
          h('p', {}, t('trace_restricted')),
          h(
            'dl',
            {},
            row(t('species'), (await speciesName(r.summary.species)) || '—'),
            row(t('recorded'), r.summary.enrolled_on),
            row(t('record_hash'), h('code', {}, r.summary.record_hash)),
            row(t('anchor'), r.summary.anchor ? anchorWords(r.summary.anchor) : h('span', {}, r.summary.anchored ? '✓' : t('anchor_none'))),
          ),
        ),
      ),
    );
  }
  const rec = r.record;
  const species = await speciesName(rec.species);
  const tl = r.tree_id ? await api(`/api/tree/${encodeURIComponent(r.tree_id)}/timeline`) : null;
  const images = rec.images as string[];
  // For a buyer first (issue 24): a large photo, the place and the story; the CID, hash and the
  // steps to verify them are under "for verifiers".
  mount(
    root,
    head,
    h(
      'main',
      {},
      h(
        'section',
        { class: 'card buyer' },
        h('h2', {}, r.name ?? species),
        images[0] ? h('img', { class: 'hero', src: blobUrl(images[0]), alt: r.name ?? species }) : null,
        h(
          'div',
          { class: 'gallery' },
          images.map((cid) => h('img', { src: blobUrl(cid), alt: cid, title: cid })),
        ),
        h('dl', {}, row(t('species'), species), row(t('recorded'), when(rec.created_at)), row(t('anchor'), anchorWords(r.anchor))),
        r.anchor ? null : h('p', { class: 'hint' }, t('anchor_none_explain')),
        await ownerAnchor(r),
      ),
      h(
        'section',
        { class: 'card' },
        h('h2', {}, t('coarse_location')),
        // A tree enrolled without lat/lon carries the explicit no-location cell, which is no place at all.
        ...(r.has_location === false ? [h('p', {}, t('no_location'))] : [cellMap(rec.geohash), h('p', { class: 'hint' }, t('map_note'))]),
      ),
      tl ? h('section', { class: 'card' }, h('h2', {}, t('story')), timelineList(tl)) : null,
      h(
        'details',
        { class: 'card verifiers' },
        h('summary', {}, t('for_verifiers')),
        h(
          'dl',
          {},
          row(r.anchor ? t('photos_in_record') : t('photos_in_record_unanchored'), String(images.length)),
          row(t('photos_held'), String(r.image_count)),
          row(t('record_cid'), h('code', {}, r.record_cid)),
          row(t('record_hash'), h('code', {}, r.record_hash)),
        ),
        h(
          'p',
          {},
          h('a', { href: `/api/resolve/${encodeURIComponent(code)}` }, t('json')),
          ' · ',
          h('a', { href: `/api/resolve/${encodeURIComponent(code)}/export` }, t('export_bundle')),
          ' ',
          h('small', {}, t('export_hint')),
        ),
      ),
    ),
  );
}

/** The owner, signed in on this device, may anchor the tree's chain from its public page. */
async function ownerAnchor(r: { tree_id?: string; anchor?: unknown }): Promise<HTMLElement | null> {
  if (!r.tree_id || r.anchor) return null;
  const mine = await api('/api/trees');
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
          const tl = await api(`/api/tree/${encodeURIComponent(r.tree_id!)}/timeline`);
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

setLang(currentLang());
void render();
