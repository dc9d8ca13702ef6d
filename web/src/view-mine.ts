import { call, errorText } from './api.js';
import { blobUrl, field, h, mount, notice } from './dom.js';
import { t, type TextKey } from './i18n.js';
import { fruitListView } from './view-fruit-list.js';
import { learningCard } from './view-learning.js';
import { farmInput, rememberFarm } from './pickers.js';
import { speciesName } from './species.js';
import { publicNameCard } from './view-public-name.js';

/** One row of a list: a photo, a name, a line under it, a link. */
function item(href: string, title: string, sub: string, cid?: string): HTMLElement {
  return h(
    'a',
    { class: 'item', href },
    cid ? h('img', { src: blobUrl(cid), alt: '', loading: 'lazy' }) : h('span', { class: 'noimg' }, title.slice(0, 1).toUpperCase()),
    h('span', {}, h('strong', {}, title), h('small', {}, sub)),
  );
}

async function treeList(box: HTMLElement) {
  const r = await call('GET', '/api/trees');
  if (!r.ok) return mount(box, notice('error', errorText(r)));
  const trees = r.json.trees as any[];
  if (!trees.length) return mount(box, notice('info', t('nothing_yet')));
  // The first photo of each tree (a few at most, so a big orchard does not fire hundreds of calls).
  const rows = await Promise.all(
    trees.slice(0, 30).map(async (tr) => {
      const v = tr.image_count ? await call('GET', `/api/tree_views?tree_id=${encodeURIComponent(tr.tree_id)}`) : null;
      const vis = t(`vis_${tr.visibility}` as TextKey);
      return item(
        `#/tree/${encodeURIComponent(tr.tree_id)}`,
        tr.name ?? t('unnamed'),
        [await speciesName(tr.species), tr.farm_id, vis].filter(Boolean).join(' · '),
        v?.json?.views?.[0]?.cid,
      );
    }),
  );
  mount(box, h('div', { class: 'list' }, rows));
}

async function animalList(box: HTMLElement, farm: string) {
  if (!farm) return mount(box);
  rememberFarm(farm);
  const r = await call('GET', `/api/animal/list?farm_id=${encodeURIComponent(farm)}`);
  if (!r.ok) return mount(box, notice('error', errorText(r)));
  const animals = (r.json.animals ?? []) as any[];
  if (!animals.length) return mount(box, notice('info', t('nothing_yet')));
  const names = await Promise.all(animals.map((a) => speciesName(a.species)));
  mount(
    box,
    h(
      'div',
      { class: 'list' },
      animals.map((a, i) =>
        item(
          `#/animal/${encodeURIComponent(a.animal_did)}`,
          a.name ?? t('unnamed'),
          [names[i], a.zone ?? a.attrs?.zone].filter(Boolean).join(' · '),
          a.cover?.cid,
        ),
      ),
    ),
  );
}

function grants(): HTMLElement {
  const box = h('div');
  const who = h('input', { name: 'grantee', autocomplete: 'off', autocapitalize: 'none' });
  const access = h(
    'select',
    { name: 'access' },
    h('option', { value: 'read' }, t('access_read')),
    h('option', { value: 'write' }, t('access_write')),
  );
  const kind = h(
    'select',
    { name: 'grant_kind' },
    (['tree', 'fruit', 'animal'] as const).map((k) => h('option', { value: k }, t(`kind_${k}`))),
  );
  async function load() {
    const r = await call('GET', '/api/grants');
    if (!r.ok) return mount(box, notice('error', errorText(r)));
    mount(
      box,
      h(
        'ul',
        { class: 'plain' },
        (r.json.given as any[]).map((g) =>
          h(
            'li',
            {},
            `${g.grantee.username} · ${t(`kind_${g.kind}` as TextKey)} · ${t(`access_${g.access}` as TextKey)} `,
            h(
              'button',
              {
                type: 'button',
                class: 'link',
                onclick: async () => {
                  await call('POST', '/api/grant/revoke', { grantee: g.grantee.username, kind: g.kind });
                  void load();
                },
              },
              t('revoke'),
            ),
          ),
        ),
      ),
    );
  }
  async function give(e: Event) {
    e.preventDefault();
    const r = await call('POST', '/api/grant', { grantee: who.value.trim(), access: access.value, kind: kind.value });
    if (!r.ok) return mount(box, notice('error', errorText(r)));
    who.value = '';
    void load();
  }
  void load();
  return h(
    'section',
    { class: 'card' },
    h('h2', {}, t('grants')),
    h(
      'form',
      { onsubmit: give, class: 'grid3' },
      field(t('grant_to'), who),
      field(t('kind'), kind),
      field('', access),
      h('button', { type: 'submit', class: 'secondary' }, t('grant')),
    ),
    box,
  );
}

/** My trees, fruit and animals, and whom I share them with. */
export function mineView(): HTMLElement {
  const treesBox = h('div', {}, notice('info', t('working')));
  const animalsBox = h('div');
  const farm = farmInput();
  void treeList(treesBox);
  void animalList(animalsBox, farm.value.trim());
  return h(
    'div',
    {},
    h('section', { class: 'card' }, h('h2', {}, t('trees')), treesBox),
    fruitListView(),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, t('animals')),
      h(
        'form',
        {
          class: 'row',
          onsubmit: (e: Event) => {
            e.preventDefault();
            void animalList(animalsBox, farm.value.trim());
          },
        },
        field(t('farm'), farm),
        h('button', { type: 'submit', class: 'secondary' }, t('load')),
      ),
      animalsBox,
    ),
    learningCard(),
    publicNameCard(),
    grants(),
  );
}
