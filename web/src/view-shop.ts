import { call, errorText } from './api.js';
import { field, h, mount, notice } from './dom.js';
import { t, type TextKey } from './i18n.js';
import { photoPicker } from './photos.js';
import { codeInPhoto, startLiveScan, type LiveScan } from './qr-scan.js';
import { speciesName } from './species.js';

/** One public candidate of POST /api/fruit/lookup. */
interface PublicCandidate {
  fruit_id: string;
  confidence: 'match' | 'possible' | 'unlikely';
  species: string | null;
  name: string | null;
  photos: { cid: string; url: string }[];
  tree: { tree_id: string; code: string | null; link: string | null } | null;
}

/**
 * The shopper's screen, no account needed: a fruit photo (camera or gallery) looked up among the
 * published fruit, or a printed code opened. The answer is the service's calibrated verdict in its
 * own sentence; each candidate carries the verdict's word for it (never a bare percentage, which
 * for fruit is a ranking score, not a confidence) and a link to its tree's public page.
 */
export function shopView(): HTMLElement {
  const picker = photoPicker({ multiple: false, name: 'fruit-photo' });
  const code = h('input', { name: 'code', autocapitalize: 'characters', autocomplete: 'off', spellcheck: false, inputmode: 'text' });
  const out = h('div', { class: 'shop-answer', 'aria-live': 'polite' });

  async function show(res: { verdict: string; not_fruit: boolean; message: string; candidates: PublicCandidate[] }, query: File) {
    const head =
      res.verdict === 'match'
        ? notice('ok', res.message)
        : res.verdict === 'uncertain'
          ? notice('warn', res.message)
          : notice('info', res.message);
    head.classList.add('verdict');
    head.dataset.verdict = res.not_fruit ? 'not_fruit' : res.verdict;
    const queryUrl = URL.createObjectURL(query);
    const names = await Promise.all(res.candidates.map((c) => speciesName(c.species)));
    const cards = res.candidates.map((c, i) => {
      const title = c.name ?? names[i] ?? t('unnamed');
      return h(
        'article',
        { class: 'candidate', 'data-id': c.fruit_id, 'data-confidence': c.confidence },
        h('h3', {}, `${i + 1}. ${title}`),
        h(
          'div',
          { class: 'pair' },
          h('figure', {}, h('img', { src: queryUrl, alt: t('your_photo') }), h('figcaption', {}, t('your_photo'))),
          h('figure', {}, c.photos[0] ? h('img', { src: c.photos[0].url, alt: title }) : null, h('figcaption', {}, title)),
        ),
        h(
          'div',
          { class: 'gallery small' },
          c.photos.slice(1).map((p) => h('img', { src: p.url, alt: title, loading: 'lazy' })),
        ),
        h(
          'p',
          { class: `likelihood confidence-${c.confidence}` },
          [names[i] && c.name ? names[i] : '', t(`conf_${c.confidence}` as TextKey)].filter(Boolean).join(' · '),
        ),
        c.tree?.link
          ? h('a', { class: 'button', href: c.tree.link, name: 'public-page' }, t('shop_tree_page'))
          : h('p', { class: 'hint' }, t('shop_no_tree')),
      );
    });
    mount(out, head, cards.length ? [h('h3', {}, t('shop_closest')), h('div', { class: 'candidates' }, cards)] : null);
  }

  async function look(e: Event) {
    e.preventDefault();
    const photo = picker.files()[0];
    if (!photo) return mount(out, notice('error', t('shop_need_photo')));
    const form = new FormData();
    form.append('files', photo, photo.name);
    mount(out, notice('info', t('working')));
    const r = await call('POST', '/api/fruit/lookup', form);
    if (!r.ok) return mount(out, notice('error', errorText(r)));
    // One photo, one fruit: the next photo is a new lookup.
    picker.clear();
    await show(r.json, photo);
  }

  async function openCode(c: string) {
    // Ask first, so an unknown or mistyped code is a sentence here rather than a bare 404 page.
    const r = await call('GET', `/api/resolve/${encodeURIComponent(c)}`);
    if (!r.ok) return mount(out, notice('error', errorText(r)));
    location.assign(r.json.link ?? `/t/${encodeURIComponent(c)}`);
  }

  async function open(e: Event) {
    e.preventDefault();
    const c = code.value.trim();
    if (!c) return mount(out, notice('error', t('shop_need_code')));
    await openCode(c);
  }

  // A photo of a label's QR code, read on the phone; the code found opens as a typed one does.
  // The typed code and the fruit photo stay as they were, whatever the photo holds.
  const scan = h('input', { type: 'file', name: 'scan-photo', accept: 'image/*', capture: 'environment', class: 'visually-hidden' });
  scan.addEventListener('change', () => void scanned());
  async function scanned() {
    const photo = scan.files?.[0];
    if (!photo) return;
    mount(out, notice('info', t('shop_scan_reading')));
    const found = await codeInPhoto(photo);
    scan.value = ''; // the same photo may be chosen again
    if (!found) return mount(out, notice('error', t('shop_scan_none')));
    await openCode(found);
  }
  const choosePhoto = () =>
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        name: 'choose-photo',
        onclick: () => {
          closeCamera();
          scan.click();
        },
      },
      t('shop_choose_photo'),
    );

  // The live scan: the camera's frames read on the phone until a code is found, which opens as a
  // typed one does. Finding it, Close, choosing a photo or leaving the screen stop every track, so
  // the camera light never stays on behind another screen.
  const camera = h('div', { class: 'shop-camera', hidden: true });
  let live: LiveScan | null = null;
  function closeCamera() {
    live?.stop();
    live = null;
    window.removeEventListener('hashchange', closeCamera);
    window.removeEventListener('pagehide', closeCamera);
    camera.hidden = true;
    camera.replaceChildren();
  }
  async function startCamera() {
    if (camera.childElementCount) return; // already open
    const video = h('video', { muted: true, autoplay: true, playsinline: true, 'aria-label': t('shop_camera_view') });
    const said = h('div', { 'aria-live': 'polite' }, notice('info', t('shop_camera_aim')));
    const close = h('button', { type: 'button', class: 'secondary', name: 'close-camera', onclick: closeCamera }, t('shop_camera_close'));
    mount(camera, video, said, h('div', { class: 'row wrap' }, close, choosePhoto()));
    camera.hidden = false;
    out.replaceChildren();
    window.addEventListener('hashchange', closeCamera);
    window.addEventListener('pagehide', closeCamera);
    const started = await startLiveScan(video, (found) => {
      if (found) {
        closeCamera();
        void openCode(found).catch(reportError);
      } else if (!said.querySelector('.warn')) {
        // Another kind of QR code (an advert, a shop's site): say so once, and keep looking.
        mount(said, notice('warn', t('shop_camera_other')));
      }
    });
    if (typeof started !== 'string') {
      if (video.isConnected) live = started;
      else started.stop(); // closed while the browser was still asking for the camera
      return;
    }
    if (!video.isConnected) return;
    closeCamera();
    mount(out, notice('warn', t(`shop_camera_${started}`)), h('div', { class: 'row wrap' }, choosePhoto()));
  }

  return h(
    'section',
    { class: 'card shop' },
    h('h2', {}, t('shop_title')),
    h('p', {}, t('shop_intro')),
    h('form', { name: 'shop-photo', onsubmit: look }, picker.el, h('button', { type: 'submit', class: 'primary' }, t('shop_look'))),
    h(
      'form',
      { name: 'shop-code', onsubmit: open },
      field(t('shop_code'), code),
      h(
        'div',
        { class: 'row wrap' },
        h('button', { type: 'submit', class: 'secondary' }, t('shop_open_code')),
        h('button', { type: 'button', class: 'secondary', name: 'scan', onclick: startCamera }, t('shop_scan')),
        scan,
      ),
      camera,
      h('p', { class: 'hint' }, t('shop_scan_hint')),
    ),
    out,
  );
}
