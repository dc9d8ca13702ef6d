import { call, errorText } from './api.js';
import { answer, blobUrl, field, h, mount, notice } from './dom.js';
import { t, type TextKey } from './i18n.js';
import { fruitTitle, tf } from './i18n-fruit.js';
import { timelineList } from './timeline.js';
import { speciesName } from './species.js';
import { careCard } from './care.js';
import { deleteButton, mergeCard, mergesCard } from './merge-dialog.js';
import { fileField } from './pickers.js';

function photos(cids: string[]): HTMLElement {
  return h(
    'div',
    { class: 'gallery' },
    cids.map((cid) => h('img', { src: blobUrl(cid), alt: '', loading: 'lazy' })),
  );
}

/** An entity's timeline, plus its care log when the care routes exist (404 there means not installed). */
async function timelineCard(type: string, id: string): Promise<HTMLElement> {
  const box = h('section', { class: 'card' }, h('h2', {}, t('timeline')));
  const r = await call('GET', `/api/${type}/${encodeURIComponent(id)}/timeline`);
  box.append(r.ok ? timelineList(r.json) : notice('error', errorText(r)));
  return box;
}

function renameForm(current: string | null, send: (name: string) => Promise<any>): HTMLElement {
  const name = h('input', { name: 'name', value: current ?? '', autocomplete: 'off' });
  const msg = h('span', { 'aria-live': 'polite' });
  return h(
    'form',
    {
      class: 'row',
      name: 'rename',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        const r = await send(name.value);
        mount(msg, r.ok && r.json.ok !== false ? notice('ok', '✓') : notice('error', errorText(r)));
        // The page's heading is the name: it shows the new one at once.
        const heading = r.ok && r.json.ok !== false ? (e.target as HTMLElement).closest('section')?.querySelector('h2') : null;
        if (heading) heading.textContent = r.json.name ?? (name.value.trim() || t('unnamed'));
        // The field shows the name as kept (the server cleans markup and spaces).
        if (heading && r.json.name) name.value = r.json.name;
      },
    },
    field(t('rename'), name),
    h('button', { type: 'submit', class: 'secondary' }, t('save')),
    msg,
  );
}

/** One tree: photos, name, publishing, its public page, care and withdrawal, and the timeline. */
export async function treeView(id: string): Promise<HTMLElement> {
  const list = await call('GET', '/api/trees');
  const tree = (list.json?.trees as any[] | undefined)?.find((x) => x.tree_id === id);
  if (!tree) return notice('error', errorText(list.ok ? { status: 404, ok: false, json: { error: t('trace_not_found') } } : list));
  const views = await call('GET', `/api/tree_views?tree_id=${encodeURIComponent(id)}`);
  const pub = h('div', { class: 'publish' });
  function renderPub(visibility: string, code: string | null) {
    const resolves = Boolean(code) && visibility !== 'private';
    const link = resolves
      ? h('a', { href: `/t/${encodeURIComponent(code!)}`, class: 'button', name: 'trace-link' }, t('public_page'))
      : null;
    // The label's QR opens the public page, so it is offered only while the code resolves.
    const label = resolves
      ? h(
          'a',
          {
            href: `/t/${encodeURIComponent(code!)}/label.svg`,
            class: 'button secondary',
            name: 'print-label',
            target: '_blank',
            rel: 'noopener',
          },
          t('print_label'),
        )
      : null;
    const labelHint = !resolves && code ? h('p', { class: 'hint' }, t('print_label_publish')) : null;
    const setVis = async (path: string, level?: string) => {
      const r = await call('POST', `/api/tree/${encodeURIComponent(id)}/${path}`, new URLSearchParams(level ? { level } : {}));
      if (r.ok) renderPub(r.json.visibility, r.json.code);
      else mount(pub, notice('error', errorText(r)));
    };
    mount(
      pub,
      h('p', {}, `${t('visibility')}: `, h('b', {}, t(`vis_${visibility}` as TextKey))),
      h(
        'div',
        { class: 'row wrap' },
        h('button', { type: 'button', class: 'secondary', name: 'publish', onclick: () => void setVis('publish', 'public') }, t('publish')),
        h('button', { type: 'button', class: 'secondary', onclick: () => void setVis('publish', 'restricted') }, t('publish_summary')),
        h('button', { type: 'button', class: 'secondary', onclick: () => void setVis('unpublish') }, t('unpublish')),
        link,
        label,
      ),
      labelHint,
    );
  }
  renderPub(tree.visibility, tree.code);
  return h(
    'div',
    {},
    h(
      'section',
      { class: 'card' },
      h('h2', {}, tree.name ?? t('unnamed')),
      h('p', { class: 'meta' }, [await speciesName(tree.species), tree.farm_id, tree.code].filter(Boolean).join(' · ')),
      photos(((views.json?.views ?? []) as any[]).map((v) => v.cid)),
      renameForm(tree.name, (name) => call('POST', '/api/rename', new URLSearchParams({ tree_id: id, name }))),
      pub,
    ),
    await careCard('tree', id),
    await timelineCard('tree', id),
  );
}

/**
 * A fruit's publish switch (issue 39: there was none): published, shoppers' lookups and scans may
 * offer it (POST /api/fruit/{id}/publish); unpublished, it is the owner's again.
 */
function fruitPublish(id: string, initial: string): HTMLElement {
  const box = h('div', { class: 'publish' });
  const set = async (path: 'publish' | 'unpublish') => {
    const r = await call('POST', `/api/fruit/${encodeURIComponent(id)}/${path}`);
    if (r.ok) render(r.json.visibility);
    else mount(box, notice('error', errorText(r)));
  };
  function render(visibility: string) {
    const published = visibility === 'public';
    mount(
      box,
      h('p', {}, `${t('visibility')}: `, h('b', { class: 'visibility' }, t(`vis_${visibility}` as TextKey))),
      h('p', { class: 'hint' }, tf('fruit_public_hint')),
      h(
        'button',
        {
          type: 'button',
          class: published ? 'secondary' : 'primary',
          name: published ? 'unpublish' : 'publish',
          onclick: () => void set(published ? 'unpublish' : 'publish'),
        },
        t(published ? 'unpublish' : 'publish'),
      ),
    );
  }
  render(initial);
  return box;
}

/** One fruit: its name (renamed here), species, tree and farm, its photos, publishing, care and withdrawal, and its timeline. */
export async function fruitView(id: string): Promise<HTMLElement> {
  const views = await call('GET', `/api/fruit/${encodeURIComponent(id)}/views`);
  if (!views.ok) return notice('error', errorText(views));
  // The same row the fruit list shows; a fruit shared through its tree has none (not the caller's own).
  const row = (await call('GET', `/api/fruit?fruit_id=${encodeURIComponent(id)}`)).json?.fruit?.[0];
  const tree = row?.tree
    ? h(
        'a',
        { href: `#/tree/${encodeURIComponent(row.tree.tree_id)}` },
        `${t('on_tree')} ${row.tree.name ?? t('unnamed')}${row.tree.code ? ` (${row.tree.code})` : ''}`,
      )
    : null;
  const meta = [await speciesName(row?.species), row?.farm_id].filter(Boolean).join(' · ');
  return h(
    'div',
    {},
    h(
      'section',
      { class: 'card' },
      h('h2', {}, row ? fruitTitle(row) : t('kind_fruit')),
      h('p', { class: 'meta' }, meta, meta && tree ? ' · ' : '', tree),
      photos(((views.json.views ?? []) as any[]).map((v) => v.cid)),
      // Only the owner's own fruit has a row; the owner renames it (POST /api/rename with fruit_id) and publishes it.
      row ? renameForm(row.name, (name) => call('POST', '/api/rename', new URLSearchParams({ fruit_id: id, name }))) : null,
      row ? fruitPublish(id, row.visibility) : null,
    ),
    await careCard('fruit', id),
    await timelineCard('fruit', id),
  );
}

/**
 * One animal, first-class: every photo, its names and codes, its timeline (enrolment, confirmed
 * identifications, photos added, merges and the owner's care events), and the owner's actions:
 * add photos, record an event, merge with another record of the same animal, rename, delete.
 */
export async function animalView(did: string): Promise<HTMLElement> {
  const r = await call('GET', `/api/animal/${encodeURIComponent(did)}`);
  if (!r.ok) return notice('error', errorText(r));
  const a = r.json;
  const cids = ((a.views ?? []) as { cid: string }[]).map((v) => v.cid);
  if (!cids.length && a.cover?.cid) cids.push(a.cover.cid);
  const enc = encodeURIComponent(did);
  const reload = () => window.dispatchEvent(new HashChangeEvent('hashchange'));

  const addMsg = h('span', { 'aria-live': 'polite' });
  const addInput = h('input', { type: 'file', name: 'add-photos', accept: 'image/*', multiple: true, capture: 'environment' });
  /** Sends the chosen photos; refused only with warnings (dark, blurred, near-identical), they can be kept, as at enrolment. */
  const addPhotos = async (extra: Record<string, string> = {}) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(extra)) form.append(k, v);
    for (const f of Array.from(addInput.files ?? [])) form.append('files', f, f.name);
    if (!form.has('files')) return mount(addMsg, notice('error', t('need_photos')));
    const x = await call('POST', `/api/animal/${enc}/photos`, form, { queue: true });
    if (x.ok) return reload();
    answer(
      addMsg,
      notice(x.json?.queued ? 'warn' : 'error', errorText(x)),
      x.json?.code === 'photos_refused' && x.json.overridable
        ? [
            notice('info', t('keep_hint')),
            h(
              'button',
              { type: 'button', class: 'secondary', name: 'keep-anyway', onclick: () => void addPhotos({ accept_warnings: 'true' }) },
              t('keep_anyway'),
            ),
          ]
        : null,
    );
  };
  const addForm = h(
    'form',
    {
      class: 'row wrap',
      name: 'add-photos',
      onsubmit: (e: Event) => {
        e.preventDefault();
        void addPhotos();
      },
    },
    fileField(t('add_photos'), addInput),
    h('button', { type: 'submit', class: 'secondary' }, t('add_photos')),
    addMsg,
  );

  const evType = h(
    'select',
    { name: 'event-type' },
    EVENT_TYPES.map((k) => h('option', { value: k }, t(`ev_${k}` as TextKey))),
  );
  const evNote = h('input', { name: 'event-note', autocomplete: 'off' });
  const evMsg = h('span', { 'aria-live': 'polite' });
  const evForm = h(
    'form',
    {
      class: 'row wrap',
      name: 'add-event',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        const x = await call('POST', `/api/animal/${enc}/event`, {
          type: evType.value,
          ...(evNote.value.trim() ? { note: evNote.value.trim() } : {}),
        });
        if (x.ok) reload();
        else mount(evMsg, notice('error', errorText(x)));
      },
    },
    field(t('event_type'), evType),
    field(t('note'), evNote),
    h('button', { type: 'submit', class: 'primary' }, t('save_event')),
    evMsg,
  );

  const others = a.farm_id ? await call('GET', `/api/animal/list?farm_id=${encodeURIComponent(a.farm_id)}`) : null;
  const self = { animal_did: String(a.animal_did ?? did), name: a.name ?? null, image_count: cids.length };

  return h(
    'div',
    {},
    h(
      'section',
      { class: 'card' },
      h('h2', {}, a.name ?? t('unnamed')),
      h('p', { class: 'meta' }, [await speciesName(a.species), a.farm_id, a.zone ?? a.attrs?.zone].filter(Boolean).join(' · ')),
      h('p', { class: 'meta codes' }, `${t('codes')}: `, h('code', {}, did)),
      h('h3', {}, t('all_photos', { n: cids.length })),
      photos(cids),
      a.owner ? addForm : null,
      a.owner ? renameForm(a.name, (name) => call('POST', '/api/animal/rename', new URLSearchParams({ animal_did: did, name }))) : null,
      a.owner ? deleteButton(self, cids, () => (location.hash = '#/mine')) : null,
    ),
    a.owner ? h('section', { class: 'card' }, h('h2', {}, t('add_event')), evForm) : null,
    a.owner ? await careCard('animal', did) : null,
    await timelineCard('animal', did),
    a.owner ? mergeCard(self, others?.json?.animals ?? [], reload) : null,
    a.owner ? await mergesCard(self.animal_did, reload) : null,
  );
}

/** Events an owner records on an animal from the app. */
const EVENT_TYPES = ['vaccination', 'calving', 'treatment'] as const;
