import { call, errorText } from './api.js';
import { answer, blobUrl, field, h, mount, notice } from './dom.js';
import { t } from './i18n.js';
import { entityHash, kindChooser, ROUTES, type Kind } from './kinds.js';
import { photoPicker } from './photos.js';
import { matchLinesCanvas, type Lines } from './match-lines.js';
import { enrolFromQuery } from './view-enrol.js';
import { speciesName } from './species.js';
import { farmInput, treeInput } from './pickers.js';
// The candidates come with a choose button, so they are worded by likeness, as in review.
import { likeness } from './view-review.js';
import { decidedBy } from './decided-by.js';

/** One of the closest animals shown for review (identify's `closest`). */
interface Closest extends Candidate {
  rank: number;
  photos: { cid: string; image_id: string; url: string }[];
  match_lines: (Lines & { image_id: string }) | null;
}

interface Candidate {
  individual_id: string;
  animal_did?: string;
  name: string | null;
  species: string | null;
  probability: number;
  photos: { cid: string }[];
}

/** Identify from photos: the candidates as photos beside the query, then the person chooses. */
export function identifyView(): HTMLElement {
  let kind: Kind = 'tree';
  // Two or three angles of one subject are asked by default: the guide says so, counts the
  // angles, and offers the next one; every photo in the picker is of that one subject.
  const guide = h('div', { class: 'angles', 'aria-live': 'polite' });
  const submitButton = h('button', { type: 'submit', class: 'primary' }, t('identify'));
  const picker = photoPicker({ onChange: (n) => showAngles(n) });
  function showAngles(n: number) {
    submitButton.textContent = n > 0 ? t('identify_n', { n }) : t('identify');
    const addAngle = h(
      'button',
      {
        type: 'button',
        class: 'secondary add-angle',
        name: 'add-angle',
        // The picker's own input, so the photo joins this same subject's photos.
        onclick: () => picker.el.querySelector<HTMLInputElement>('input[type=file]')?.click(),
      },
      t('add_angle'),
    );
    if (n === 0) mount(guide, h('p', { class: 'hint' }, t(`angles_${kind}`)));
    else if (n === 1) mount(guide, h('p', { class: 'hint' }, t('angles_one')), addAngle);
    else mount(guide, h('p', { class: 'hint ok' }, t('angles_enough', { n })));
  }
  showAngles(0);
  const farm = farmInput();
  // For fruit, naming the tree it hangs on narrows the pool: the largest improvement there is (spec 1 rule 5).
  const tree = treeInput();
  const farmField = field(t('farm'), farm);
  const treeField = field(t('tree_id'), tree);
  treeField.hidden = true;
  const out = h('div', { 'aria-live': 'polite' });

  async function label(queryId: string, verdict: string, chosen: Candidate | null, box: HTMLElement) {
    const form = new URLSearchParams({ query_id: queryId, verdict });
    if (chosen) form.set(ROUTES[kind].correctField, kind === 'animal' ? (chosen.animal_did ?? '') : chosen.individual_id);
    const r = await call('POST', ROUTES[kind].verdict, form);
    const link = chosen
      ? h('a', { class: 'button', href: entityHash(kind, { ...chosen, tree_id: chosen.individual_id }) }, t('open'), ' ', chosen.name ?? '')
      : null;
    answer(box, r.ok ? notice('ok', t('chosen'), ' ', link) : notice('error', errorText(r)));
  }

  /**
   * Wildbook-style review of an animal: the closest animals on every verdict, each with its
   * photos and the matched keypoints drawn as lines; "this one" confirms and keeps the photo with
   * it, "none of these" takes the photo to a new enrolment.
   */
  async function review(res: any, query: File, more: HTMLElement) {
    const head = verdictHead(res);
    const done = h('div', { class: 'chosen', 'aria-live': 'polite' });
    const queryUrl = URL.createObjectURL(query);
    const cards = await Promise.all(
      (res.closest as Closest[]).map(async (c) => {
        const did = c.animal_did ?? '';
        const best = c.photos[0];
        return h(
          'article',
          { class: 'candidate', 'data-id': c.individual_id },
          h('h3', {}, `${c.rank}. `, h('a', { href: `#/animal/${encodeURIComponent(did)}` }, c.name ?? t('unnamed'))),
          best ? matchLinesCanvas(queryUrl, blobUrl(best.cid), c.match_lines) : null,
          h(
            'div',
            { class: 'gallery small' },
            c.photos.slice(1).map((p) => h('img', { src: blobUrl(p.cid), alt: c.name ?? '', loading: 'lazy' })),
          ),
          h('p', { class: 'likelihood' }, [await speciesName(c.species), likeness(c.probability)].filter(Boolean).join(' · ')),
          h(
            'button',
            {
              type: 'button',
              class: 'primary choose',
              name: 'this-one',
              onclick: async () => {
                const r = await call('POST', '/api/animal/confirm', new URLSearchParams({ query_id: res.query_id, animal_did: did }));
                answer(
                  done,
                  r.ok
                    ? notice(
                        'ok',
                        t('confirmed_added'),
                        ' ',
                        h('a', { class: 'button', href: `#/animal/${encodeURIComponent(did)}` }, t('open'), ' ', c.name ?? ''),
                      )
                    : notice('error', errorText(r)),
                );
              },
            },
            t('this_one'),
          ),
        );
      }),
    );
    const none = h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        name: 'none-enrol-new',
        onclick: () => enrolFromQuery({ query_id: res.query_id, file: query }),
      },
      t('none_enrol_new'),
    );
    mount(out, head, h('h3', {}, t('closest_title')), h('div', { class: 'candidates' }, cards), none, done, more);
  }

  async function render(res: any, query: File, more: HTMLElement) {
    if (kind === 'animal' && Array.isArray(res.closest)) return void review(res, query, more);
    const names = await Promise.all((res.candidates as Candidate[]).map((c) => speciesName(c.species)));
    const head = verdictHead(res);
    const done = h('div', { class: 'chosen' });
    const queryUrl = URL.createObjectURL(query);
    const cands = (res.candidates as Candidate[]).map((c, i) =>
      h(
        'article',
        { class: 'candidate', 'data-id': c.individual_id },
        h(
          'div',
          { class: 'pair' },
          h('figure', {}, h('img', { src: queryUrl, alt: t('your_photo') }), h('figcaption', {}, t('your_photo'))),
          h(
            'figure',
            {},
            c.photos[0] ? h('img', { src: blobUrl(c.photos[0].cid), alt: c.name ?? '' }) : null,
            h('figcaption', {}, c.name ?? t('unnamed')),
          ),
        ),
        h('p', { class: 'likelihood' }, names[i] ? `${names[i]} · ` : '', likeness(c.probability)),
        h(
          'button',
          { type: 'button', class: 'primary choose', onclick: () => void label(res.query_id, i === 0 ? 'correct' : 'other', c, done) },
          t('choose'),
        ),
      ),
    );
    const none = h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: () =>
          void label(res.query_id, res.verdict === 'no_match' ? 'unknown_ok' : res.verdict === 'match' ? 'wrong' : 'other', null, done),
      },
      t('none_of_these'),
    );
    mount(out, head, h('div', { class: 'candidates' }, cands), none, done, more);
  }

  /**
   * Ask about one subject. Several photos of one subject are one query for every kind: the service
   * fuses their evidence (at most 10). `files` are only ever photos the person meant as that one
   * subject: the picker's, or the last query's plus an explicit "another angle of this one".
   */
  async function ask(files: File[], fromPicker: boolean) {
    const form = new FormData();
    if (kind !== 'fruit' && farm.value.trim()) form.append('farm_id', farm.value.trim());
    if (kind === 'fruit' && tree.value.trim()) form.append('tree_id', tree.value.trim());
    const sent = files.slice(0, 10);
    for (const f of sent) form.append('files', f, f.name);
    mount(out, notice('info', t('working')));
    const r = await call('POST', ROUTES[kind].identify, form);
    // A refused or failed query keeps its photos where they were, to be fixed and sent again.
    if (!r.ok) return mount(out, notice('error', errorText(r)));
    // Answered: the picker starts empty, so the next subject's photo is never joined to this one's.
    if (fromPicker) picker.clear();
    await render(r.json, sent[0]!, angleOf(sent));
  }

  /** The explicit way to add photos to the query just answered: more angles of this same subject. */
  function angleOf(sent: File[]): HTMLElement {
    const input = h('input', {
      type: 'file',
      accept: 'image/*',
      capture: 'environment',
      multiple: true,
      name: 'another-angle',
      class: 'visually-hidden',
      onchange: async () => {
        const more = Array.from(input.files ?? []);
        input.value = '';
        if (more.length) await ask([...sent, ...more], false);
      },
    });
    return h(
      'section',
      { class: 'another-angle', 'aria-label': t('another_angle') },
      h('p', { class: 'hint query-count' }, t('query_photos', { n: sent.length }), ' ', t('next_subject_hint')),
      h('label', { class: 'button secondary' }, t('another_angle'), input),
      h('p', { class: 'hint' }, t('another_angle_hint')),
    );
  }

  async function submit(e: Event) {
    e.preventDefault();
    const files = picker.files();
    if (!files.length) return mount(out, notice('error', t('need_photos')));
    await ask(files, true);
  }

  return h(
    'section',
    { class: 'card' },
    h('h2', {}, t('identify_title')),
    h(
      'form',
      { onsubmit: submit, name: 'identify' },
      kindChooser(kind, (k) => {
        kind = k;
        showAngles(picker.files().length);
        farmField.hidden = k === 'fruit';
        treeField.hidden = k !== 'fruit';
        mount(out);
      }),
      picker.el,
      guide,
      farmField,
      treeField,
      submitButton,
    ),
    out,
  );
}

/** The verdict in words, and under it which calibration decided and how often it may be wrong. */
function verdictHead(res: any) {
  const said =
    res.verdict === 'match'
      ? notice('ok', t('verdict_match'))
      : res.verdict === 'uncertain'
        ? notice('warn', t('verdict_uncertain'), ' ', t('verdict_uncertain_help'))
        : notice('info', t('verdict_no_match'));
  return [said, decidedBy(res.calibration)];
}
