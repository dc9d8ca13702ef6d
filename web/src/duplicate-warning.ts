import { call, errorText } from './api.js';
import { answer, h, notice, type Child } from './dom.js';
import { t } from './i18n.js';
import { tm } from './i18n-merge.js';

/** The animal an enrolment's photos already show (the 422 `already_enrolled` answer's `existing`). */
export interface Existing {
  animal_did: string;
  name: string | null;
  photos?: { cid: string; url: string }[];
}

/**
 * The duplicate warning at enrolment (issue 39 item 7): the animal the photos already show, with
 * its own photos beside the ones just taken (still in the picker), and the owner's two answers:
 * "this one" adds the photos to it instead of making a second animal, "a different one" enrols
 * anyway. Answers into `msg`.
 */
export function duplicateWarning(existing: Existing, o: { msg: HTMLElement; files: () => File[]; enrolAnyway: () => void }): Child[] {
  const did = existing.animal_did;
  const page = `#/animal/${encodeURIComponent(did)}`;
  const name = existing.name || `#${did.slice(-8)}`;
  const add = async () => {
    const form = new FormData();
    const files = o.files();
    for (const f of files) form.append('files', f, f.name);
    const a = await call('POST', `/api/animal/${encodeURIComponent(did)}/photos`, form, { queue: true });
    if (a.json?.queued) return answer(o.msg, notice('warn', t('queued_offline')));
    answer(
      o.msg,
      a.ok
        ? notice('ok', tm('dup_added', { n: files.length, name }), ' ', h('a', { class: 'button', href: page }, t('open')))
        : notice('error', errorText(a)),
    );
  };
  return [
    notice('warn', tm('dup_sentence', { name })),
    h(
      'div',
      { class: 'duplicate' },
      // Three small photos in one row: on a phone the two answers stay on screen below them.
      h(
        'div',
        { class: 'thumbs' },
        (existing.photos ?? [])
          .slice(0, 3)
          .map((p) => h('div', { class: 'thumb' }, h('img', { src: p.url, alt: tm('dup_theirs', { name }) }))),
      ),
      h('p', {}, h('a', { href: page }, tm('dup_theirs', { name }))),
    ),
    h(
      'div',
      { class: 'row wrap' },
      h('button', { type: 'button', class: 'primary', name: 'add-to-existing', onclick: () => void add() }, tm('dup_add', { name })),
      h('button', { type: 'button', class: 'secondary', name: 'enrol-anyway', onclick: () => o.enrolAnyway() }, tm('dup_other')),
    ),
  ];
}
