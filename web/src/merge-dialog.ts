import { call, errorText } from './api.js';
import { blobUrl, h, mount, notice } from './dom.js';
import { t } from './i18n.js';
import { tm } from './i18n-merge.js';
import { askSure } from './sure-dialog.js';
import { when } from './timeline.js';

/** An animal as the merge and delete dialogs name it. */
export interface AnimalRef {
  animal_did: string;
  name: string | null;
  image_count?: number;
  cover?: { cid: string } | null;
}

interface Merge {
  merge_id: string;
  into: { animal_did: string; name: string | null };
  from: { animal_did: string; name: string | null };
  photos_moved: number;
  photos: { cid: string; url: string }[];
  created_at: string;
  undone_at: string | null;
}

/** A name a sentence can carry: the animal's own, else the end of its code (never "(no name)"). */
const nameOf = (a: { animal_did: string; name: string | null }) => a.name || `#${a.animal_did.slice(-8)}`;
const gallery = (urls: string[]) =>
  h(
    'div',
    { class: 'gallery' },
    urls.map((src) => h('img', { src, alt: '', loading: 'lazy' })),
  );

/**
 * Merging another record of the same animal into this one (issue 39 item 7): the candidates are
 * shown with their photos, and the dialog says in one sentence what moves where and that it can be
 * undone. Null when the farm has no other animal.
 */
export function mergeCard(into: AnimalRef, others: AnimalRef[], reload: () => void): HTMLElement | null {
  const candidates = others.filter((x) => x.animal_did !== into.animal_did);
  if (!candidates.length) return null;
  const msg = h('span', { 'aria-live': 'polite' });
  const pick = candidates.map((x) =>
    h(
      'label',
      { class: 'candidate merge-candidate' },
      h('input', { type: 'radio', name: 'merge-from', value: x.animal_did }),
      ' ',
      h('b', {}, nameOf(x)),
      ` · ${tm('photos_n', { n: x.image_count ?? 0 })}`,
      x.cover ? gallery([blobUrl(x.cover.cid)]) : null,
    ),
  );
  const submit = async (e: Event) => {
    e.preventDefault();
    const chosen = (e.target as HTMLFormElement).querySelector<HTMLInputElement>('input[name=merge-from]:checked');
    const from = candidates.find((x) => x.animal_did === chosen?.value);
    if (!from) return mount(msg, notice('error', tm('merge_choose')));
    const sure = await askSure({
      name: 'merge',
      sentence: tm('merge_sentence', { from: nameOf(from), into: nameOf(into), n: from.image_count ?? 0 }),
      act: t('merge'),
      photos: from.cover ? gallery([blobUrl(from.cover.cid)]) : null,
    });
    if (!sure) return;
    const x = await call('POST', '/api/animal/merge', new URLSearchParams({ into: into.animal_did, from: from.animal_did }));
    if (x.ok) reload();
    else mount(msg, notice('error', errorText(x)));
  };
  return h(
    'section',
    { class: 'card' },
    h('h2', {}, t('merge_title')),
    h(
      'form',
      { name: 'merge', onsubmit: (e: Event) => void submit(e) },
      h('p', {}, tm('merge_pick', { name: nameOf(into) })),
      h('div', { class: 'candidates' }, pick),
      h('div', { class: 'row wrap' }, h('button', { type: 'submit', class: 'secondary' }, t('merge')), msg),
    ),
  );
}

/** The merges into this animal, each with its photos and, while it stands, "undo the merge". Null when there were none. */
export async function mergesCard(did: string, reload: () => void): Promise<HTMLElement | null> {
  const r = await call('GET', `/api/animal/merges?animal_did=${encodeURIComponent(did)}`);
  const merges = ((r.json?.merges ?? []) as Merge[]).filter((m) => m.into.animal_did === did);
  if (!r.ok || !merges.length) return null;
  const msg = h('span', { 'aria-live': 'polite' });
  const undo = async (m: Merge) => {
    const words = { from: nameOf(m.from), into: nameOf(m.into), n: m.photos.length };
    const sure = await askSure({
      name: 'unmerge',
      sentence: tm('unmerge_sentence', words),
      act: tm('unmerge'),
      photos: gallery(m.photos.map((p) => p.url)),
    });
    if (!sure) return;
    const x = await call('POST', `/api/animal/merges/${encodeURIComponent(m.merge_id)}/undo`, new URLSearchParams());
    if (x.ok) reload();
    else mount(msg, notice('error', errorText(x)));
  };
  return h(
    'section',
    { class: 'card merges' },
    h('h2', {}, tm('merges_title')),
    h(
      'ul',
      {},
      merges.map((m) => {
        const words = { from: nameOf(m.from), into: nameOf(m.into), n: m.photos_moved, when: when(m.undone_at ?? m.created_at) };
        return h(
          'li',
          { 'data-merge': m.merge_id },
          h('p', {}, tm(m.undone_at ? 'unmerged_line' : 'merge_line', words)),
          gallery(m.photos.map((p) => p.url)),
          m.undone_at
            ? null
            : h('button', { type: 'button', class: 'secondary', name: 'unmerge', onclick: () => void undo(m) }, tm('unmerge')),
        );
      }),
    ),
    msg,
  );
}

/** Delete, after a sentence saying what goes (the animal and its photos) and what stays (its history). */
export function deleteButton(a: AnimalRef, cids: string[], done: () => void): HTMLElement {
  return h(
    'button',
    {
      type: 'button',
      class: 'danger',
      name: 'delete',
      onclick: async () => {
        const sure = await askSure({
          name: 'delete',
          danger: true,
          sentence: tm('delete_sentence', { name: nameOf(a), n: cids.length }),
          act: t('delete'),
          photos: gallery(cids.slice(0, 4).map(blobUrl)),
        });
        if (!sure) return;
        const d = await call('DELETE', `/api/animal/${encodeURIComponent(a.animal_did)}`);
        if (d.ok) done();
      },
    },
    t('delete'),
  );
}
