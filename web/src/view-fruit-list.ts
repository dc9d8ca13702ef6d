import { call, errorText } from './api.js';
import { blobUrl, field, h, mount, notice } from './dom.js';
import { t } from './i18n.js';
import { fruitTitle } from './i18n-fruit.js';
import { speciesName } from './species.js';
import { treeInput } from './pickers.js';

interface Fruit {
  fruit_id: string;
  short_code: string;
  name: string | null;
  species: string | null;
  farm_id: string | null;
  tree: { tree_id: string; name: string | null; code: string | null } | null;
  image_count: number;
  cover: { cid: string } | null;
  visibility: 'private' | 'restricted' | 'public';
}

const PAGE = 30;

/** "On tree X (code)", the way a fruit's tree is shown everywhere in the app. */
export const treeLabel = (tr: { name?: string | null; code?: string | null } | null | undefined) =>
  tr ? [tr.name ?? t('unnamed'), tr.code ? `(${tr.code})` : null].filter(Boolean).join(' ') : '';

/** One fruit row: its first photo, its name (or short code), its tree's name and printed code, and whether it is published. */
function fruitItem(f: Fruit, species: string): HTMLElement {
  const title = fruitTitle(f);
  const sub = [
    f.tree ? `${t('on_tree')} ${treeLabel(f.tree)}` : null,
    species,
    f.farm_id,
    t('all_photos', { n: f.image_count }),
    f.visibility === 'public' ? t('vis_public') : null,
  ]
    .filter(Boolean)
    .join(' · ');
  return h(
    'a',
    { class: 'item fruit-item', href: `#/fruit/${encodeURIComponent(f.fruit_id)}`, 'data-id': f.fruit_id },
    f.cover
      ? h('img', { src: blobUrl(f.cover.cid), alt: '', loading: 'lazy' })
      : h('span', { class: 'noimg' }, title.slice(0, 1).toUpperCase()),
    h('span', {}, h('strong', {}, title), h('small', {}, sub)),
  );
}

/** My enrolled fruit (issue 24: it was listed nowhere), narrowed by a tree's printed code or id. */
export function fruitListView(): HTMLElement {
  const tree = treeInput({ autocapitalize: 'characters' });
  const list = h('div', { class: 'list fruit-list', 'aria-live': 'polite' }, notice('info', t('working')));
  const more = h('button', { type: 'button', class: 'secondary', name: 'more', hidden: true }, t('more'));
  let offset = 0;

  async function load(reset: boolean) {
    if (reset) offset = 0;
    const q = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
    if (tree.value.trim()) q.set('tree_id', tree.value.trim());
    const r = await call('GET', `/api/fruit?${q}`);
    if (!r.ok) return mount(list, notice('error', errorText(r)));
    const fruit = r.json.fruit as Fruit[];
    if (reset) list.replaceChildren();
    const names = await Promise.all(fruit.map((f) => speciesName(f.species)));
    list.append(...fruit.map((f, i) => fruitItem(f, names[i]!)));
    offset += fruit.length;
    more.hidden = offset >= Number(r.json.total);
    if (!Number(r.json.total)) mount(list, notice('info', t('nothing_yet')));
  }
  more.addEventListener('click', () => void load(false));
  void load(true);
  return h(
    'section',
    { class: 'card' },
    h('h2', {}, t('fruit_list_title')),
    h(
      'form',
      {
        class: 'row',
        name: 'fruit-filter',
        onsubmit: (e: Event) => {
          e.preventDefault();
          void load(true);
        },
      },
      field(t('tree_id'), tree),
      h('button', { type: 'submit', class: 'secondary' }, t('load')),
    ),
    list,
    more,
  );
}
