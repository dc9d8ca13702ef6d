import { call, errorText } from './api.js';
import { blobUrl, field, h, mount, notice } from './dom.js';
import { t } from './i18n.js';
import { entityHash, kindChooser, ROUTES, type Kind } from './kinds.js';
import { photoPicker } from './photos.js';

interface Candidate {
  individual_id: string;
  animal_did?: string;
  name: string | null;
  species: string | null;
  probability: number;
  photos: { cid: string }[];
}

/** The probability in plain words, with the number beside it. */
export function likelihood(p: number): string {
  const words = p >= 0.9 ? t('p_certain') : p >= 0.7 ? t('p_likely') : p >= 0.4 ? t('p_possible') : t('p_unlikely');
  return `${words} (${Math.round(p * 100)}%)`;
}

/** Identify from photos: the candidates as photos beside the query, then the person chooses. */
export function identifyView(): HTMLElement {
  let kind: Kind = 'tree';
  const picker = photoPicker();
  const farm = h('input', { name: 'farm_id', autocomplete: 'off' });
  // For fruit, naming the tree it hangs on narrows the pool: the largest improvement there is (spec 1 rule 5).
  const tree = h('input', { name: 'tree_id', autocomplete: 'off' });
  const farmField = field(t('farm'), farm);
  const treeField = field(t('tree_id'), tree);
  treeField.hidden = true;
  const out = h('div', { 'aria-live': 'polite' });

  async function label(queryId: string, verdict: string, chosen: Candidate | null, box: HTMLElement) {
    const form = new URLSearchParams({ query_id: queryId, verdict });
    if (chosen) form.set(ROUTES[kind].correctField, kind === 'animal' ? chosen.animal_did ?? '' : chosen.individual_id);
    const r = await call('POST', ROUTES[kind].verdict, form);
    const link = chosen ? h('a', { class: 'button', href: entityHash(kind, { ...chosen, tree_id: chosen.individual_id }) }, t('open'), ' ', chosen.name ?? '') : null;
    mount(box, r.ok ? notice('ok', t('chosen'), ' ', link) : notice('error', errorText(r)));
  }

  function render(res: any, query: File) {
    const head = res.verdict === 'match' ? notice('ok', t('verdict_match'))
      : res.verdict === 'uncertain' ? notice('warn', t('verdict_uncertain'), ' ', t('verdict_uncertain_help'))
      : notice('info', t('verdict_no_match'));
    const done = h('div', { class: 'chosen' });
    const queryUrl = URL.createObjectURL(query);
    const cands = (res.candidates as Candidate[]).map((c, i) =>
      h('article', { class: 'candidate', 'data-id': c.individual_id },
        h('div', { class: 'pair' },
          h('figure', {}, h('img', { src: queryUrl, alt: t('your_photo') }), h('figcaption', {}, t('your_photo'))),
          h('figure', {}, c.photos[0] ? h('img', { src: blobUrl(c.photos[0].cid), alt: c.name ?? '' }) : null, h('figcaption', {}, c.name ?? t('unnamed')))),
        h('p', { class: 'likelihood' }, c.species ? `${c.species} · ` : '', likelihood(c.probability)),
        h('button', { type: 'button', class: 'primary choose', onclick: () => void label(res.query_id, i === 0 ? 'correct' : 'other', c, done) }, t('choose'))));
    const none = h('button', {
      type: 'button', class: 'secondary',
      onclick: () => void label(res.query_id, res.verdict === 'no_match' ? 'unknown_ok' : res.verdict === 'match' ? 'wrong' : 'other', null, done),
    }, t('none_of_these'));
    mount(out, head, h('div', { class: 'candidates' }, cands), none, done);
  }

  async function submit(e: Event) {
    e.preventDefault();
    const files = picker.files();
    if (!files.length) return mount(out, notice('error', t('need_photos')));
    const form = new FormData();
    if (kind !== 'fruit' && farm.value.trim()) form.append('farm_id', farm.value.trim());
    if (kind === 'fruit' && tree.value.trim()) form.append('tree_id', tree.value.trim());
    // Animals take one photo per query; trees and fruit take several views of one subject.
    for (const f of kind === 'animal' ? files.slice(0, 1) : files) form.append('files', f, f.name);
    mount(out, notice('info', t('working')));
    const r = await call('POST', ROUTES[kind].identify, form);
    if (!r.ok) return mount(out, notice('error', errorText(r)));
    render(r.json, files[0]!);
  }

  return h('section', { class: 'card' },
    h('h2', {}, t('identify_title')),
    h('form', { onsubmit: submit, name: 'identify' },
      kindChooser(kind, (k) => { kind = k; farmField.hidden = k === 'fruit'; treeField.hidden = k !== 'fruit'; }), picker.el, farmField, treeField,
      h('button', { type: 'submit', class: 'primary' }, t('identify'))),
    out);
}
