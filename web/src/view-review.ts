import { call, errorText } from './api.js';
import { blobUrl, h, mount, notice } from './dom.js';
import { t, type TextKey } from './i18n.js';
import { entityHash, ROUTES, type Kind } from './kinds.js';
import { when } from './timeline.js';

interface Item {
  query_id: string;
  kind: Kind;
  verdict: 'uncertain' | 'no_match';
  source: 'photos' | 'video' | 'survey' | 'batch';
  photos: { cid: string }[];
  closest: { individual_id: string; animal_did?: string; name: string | null; probability?: number; photos: { cid: string }[] }[];
  created_at: string;
}

const PAGE = 20;

/**
 * A candidate's likeness in words, with the number beside it. Every candidate here is offered with
 * a "this one" button on an answer the system was not sure of, so the words say how alike the
 * photos look, never that the candidate is unlikely or certain: the person decides.
 */
export function likeness(p: number): string {
  const words = p >= 0.7 ? t('like_very') : p >= 0.3 ? t('like_fair') : t('like_faint');
  return `${words} (${Math.round(p * 100)}%)`;
}
type Listener = (n: number) => void;
let onCount: Listener = () => {};
/** The nav's badge listens here, so a decision updates it without a page reload. */
export function onReviewCount(l: Listener): void {
  onCount = l;
}

/** How many answers wait for a decision (the tab's badge); null when it cannot be known now. */
export async function reviewCount(): Promise<number | null> {
  const r = await call('GET', '/api/review/queue?limit=1');
  return r.ok ? Number(r.json.total) : null;
}

/**
 * The review queue (issue 24): identify answers left for later. Each card shows the query photo
 * beside the closest individuals; "this one" or "none of these" decides it and it leaves the list.
 */
export function reviewView(): HTMLElement {
  const list = h('div', { class: 'review-queue', 'aria-live': 'polite' });
  const more = h('button', { type: 'button', class: 'secondary', name: 'more', hidden: true }, t('more'));
  let offset = 0;
  let total = 0;

  async function decide(item: Item, card: HTMLElement, chosen: Item['closest'][number] | null, rank: number) {
    let r;
    if (chosen && item.kind === 'animal') {
      r = await call('POST', '/api/animal/confirm', new URLSearchParams({ query_id: item.query_id, animal_did: chosen.animal_did ?? '' }));
    } else {
      const verdict = chosen ? (rank === 0 ? 'correct' : 'other') : item.verdict === 'no_match' ? 'unknown_ok' : 'other';
      const form = new URLSearchParams({ query_id: item.query_id, verdict });
      if (chosen) form.set(ROUTES[item.kind].correctField, item.kind === 'animal' ? (chosen.animal_did ?? '') : chosen.individual_id);
      r = await call('POST', ROUTES[item.kind].verdict, form);
    }
    if (!r.ok) return void card.append(notice('error', errorText(r)));
    card.remove();
    total = Math.max(0, total - 1);
    onCount(total);
    if (!list.querySelector('article')) mount(list, notice('ok', t('review_empty')));
  }

  function card(item: Item): HTMLElement {
    const el = h('article', { class: 'review-item', 'data-query': item.query_id });
    const query = item.photos[0];
    el.append(
      h(
        'p',
        { class: 'meta' },
        t(`kind_${item.kind}` as TextKey),
        ' · ',
        item.verdict === 'uncertain' ? t('verdict_uncertain') : t('verdict_no_match'),
        ' · ',
        when(item.created_at),
      ),
      h('p', { class: 'hint' }, t('like_help')),
      h(
        'div',
        { class: 'pair' },
        // Pinned while the candidates scroll past it (app.css): the photo to identify stays in view.
        h(
          'figure',
          { class: 'query' },
          !query
            ? null
            : item.source === 'video'
              ? h('video', { src: blobUrl(query.cid), controls: true, muted: true, preload: 'metadata' })
              : h('img', { src: blobUrl(query.cid), alt: t('your_photo'), loading: 'lazy' }),
          h('figcaption', {}, t('review_query')),
        ),
        h(
          'div',
          { class: 'candidates' },
          item.closest.map((c, i) =>
            h(
              'figure',
              { class: 'candidate', 'data-id': c.individual_id },
              c.photos[0] ? h('img', { src: blobUrl(c.photos[0].cid), alt: c.name ?? '', loading: 'lazy' }) : null,
              h(
                'figcaption',
                {},
                h('a', { href: entityHash(item.kind, c) }, c.name ?? t('unnamed')),
                c.probability != null ? h('span', { class: 'likeness' }, ` · ${likeness(c.probability)}`) : '',
              ),
              h(
                'button',
                { type: 'button', class: 'primary choose', name: 'this-one', onclick: () => void decide(item, el, c, i) },
                t(item.kind === 'animal' ? 'this_one' : 'this_individual'),
              ),
            ),
          ),
        ),
      ),
      h(
        'button',
        { type: 'button', class: 'secondary', name: 'none-of-these', onclick: () => void decide(item, el, null, -1) },
        t('none_of_these'),
      ),
    );
    return el;
  }

  async function load() {
    const r = await call('GET', `/api/review/queue?limit=${PAGE}&offset=${offset}`);
    if (!r.ok) return mount(list, notice('error', errorText(r)));
    total = Number(r.json.total);
    onCount(total);
    if (offset === 0) list.replaceChildren();
    for (const item of r.json.items as Item[]) list.append(card(item));
    offset += (r.json.items as Item[]).length;
    more.hidden = offset >= total;
    if (!total) mount(list, notice('ok', t('review_empty')));
  }
  more.addEventListener('click', () => void load());
  void load();
  return h('section', { class: 'card' }, h('h2', {}, t('review_title')), h('p', {}, t('review_help')), list, more);
}
