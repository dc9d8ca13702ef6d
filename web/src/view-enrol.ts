import { call, errorText, type Answer } from './api.js';
import { duplicateWarning } from './duplicate-warning.js';
import { answer, blobUrl, field, h, mount, notice } from './dom.js';
import { reasonText, t } from './i18n.js';
import { tf } from './i18n-fruit.js';
import { entityHash, kindChooser, ROUTES, type Kind } from './kinds.js';
import { photoPicker } from './photos.js';
import { speciesSelect } from './species.js';
import { farmInput, forgetLists, rememberFarm, treeInput } from './pickers.js';

const FIELDS: Record<Kind, Array<[string, 'farm' | 'species' | 'name' | 'zone' | 'tree_id', boolean]>> = {
  tree: [
    ['species', 'species', false],
    ['farm_id', 'farm', false],
    ['name', 'name', false],
  ],
  // A fruit is named first (issue 39): lists, batch tables and the CSV read its name.
  fruit: [
    ['name', 'name', false],
    ['tree_id', 'tree_id', false],
    ['species', 'species', false],
  ],
  animal: [
    ['species', 'species', true],
    ['farm_id', 'farm', true],
    ['name', 'name', false],
    ['zone', 'zone', false],
  ],
};

interface EnrolledImage {
  image_id: string;
  cid: string;
  width: number;
  height: number;
  filename?: string;
  subject?: { box: { x: number; y: number; w: number; h: number } } | null;
}
const pct = (x: number) => `${(Math.max(0, Math.min(1, x)) * 100).toFixed(2)}%`;

/**
 * The animal's enrolled photos, each with the box of the animal the detector found, or a note
 * that none was found and the whole photo is used: the detector helps, it does not refuse.
 */
function enrolledPhotos(images: readonly EnrolledImage[]): HTMLElement | null {
  if (!images.length) return null;
  return h(
    'div',
    { class: 'thumbs enrolled' },
    images.map((im) => {
      const b = im.subject?.box;
      return h(
        'figure',
        { class: 'thumb', 'data-image': im.image_id },
        h(
          'span',
          { class: 'boxed' },
          h('img', { src: blobUrl(im.cid), alt: im.filename ?? '', loading: 'lazy' }),
          b
            ? h('span', {
                class: 'subject-box',
                style: `left:${pct(b.x / im.width)};top:${pct(b.y / im.height)};width:${pct(b.w / im.width)};height:${pct(b.h / im.height)}`,
              })
            : null,
        ),
        b ? null : h('figcaption', { class: 'mark' }, t('no_animal_box')),
      );
    }),
  );
}

/** An identify query whose photo the owner keeps for a new animal ("none of these"). */
export interface PendingQuery {
  query_id: string;
  file: File;
}
let pending: PendingQuery | null = null;
export function enrolFromQuery(q: PendingQuery): void {
  pending = q;
  location.hash = '#/enrol/animal';
}

/** Enrol a tree, fruit or animal from photos. */
export function enrolView(initial: Kind = 'tree'): HTMLElement {
  let kind: Kind = initial;
  const query = kind === 'animal' ? pending : null;
  pending = null;
  const picker = photoPicker();
  const inputs = h('div', { class: 'grid2' });
  const values: Record<string, HTMLInputElement | HTMLSelectElement> = {};
  const msg = h('div', { 'aria-live': 'polite' });
  // The tree's coarse location makes its traceability code; the phone knows it better than a typed number.
  const loc = { lat: '', lon: '' };
  const locText = h('span', { class: 'hint' });
  const locate = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      name: 'locate',
      onclick: () =>
        navigator.geolocation?.getCurrentPosition(
          (p) => {
            loc.lat = p.coords.latitude.toFixed(6);
            loc.lon = p.coords.longitude.toFixed(6);
            locText.textContent = ` ${loc.lat}, ${loc.lon}`;
          },
          () => {
            locText.textContent = ` ${t('location_failed')}`;
          },
          { enableHighAccuracy: true, timeout: 15_000 },
        ),
    },
    t('attach_location'),
  );
  const locRow = h('p', { class: 'row wrap' }, locate, locText);
  async function renderFields() {
    locRow.hidden = kind !== 'tree';
    // A species picker in the app's language; the farm last used on this device (on a new one, the account's latest).
    values.species = await speciesSelect(
      kind,
      FIELDS[kind].some(([n, , r]) => n === 'species' && r),
    );
    values.farm_id ??= farmInput();
    mount(
      inputs,
      FIELDS[kind].map(([name, label, required]) => {
        values[name] ??= name === 'tree_id' ? treeInput() : h('input', { name, autocomplete: 'off' });
        values[name]!.required = required;
        return field(t(label), values[name]!);
      }),
    );
    if (values.name instanceof HTMLInputElement) values.name.placeholder = kind === 'fruit' ? tf('fruit_name_hint') : '';
  }

  async function send(extra: Record<string, string> = {}) {
    const form = new FormData();
    for (const [name] of FIELDS[kind]) if (values[name]?.value.trim()) form.append(name, values[name]!.value.trim());
    if (kind === 'tree' && loc.lat) {
      form.append('lat', loc.lat);
      form.append('lon', loc.lon);
    }
    if (query) form.append('query_id', query.query_id);
    for (const [k, v] of Object.entries(extra)) form.append(k, v);
    for (const f of picker.files()) form.append('files', f, f.name);
    answer(msg, notice('info', t('working')));
    rememberFarm(values.farm_id?.value.trim() ?? '');
    const r = await call('POST', ROUTES[kind].enrol, form, { queue: true });
    if (r.json?.queued) return answer(msg, notice('warn', t('queued_offline')));
    if (!r.ok) return refused(r);
    picker.clear();
    if (kind === 'tree') forgetLists();
    answer(
      msg,
      notice('ok', t('enrolled'), ' ', h('a', { href: entityHash(kind, r.json), class: 'button' }, t('open'))),
      kind === 'animal' ? enrolledPhotos(r.json.images ?? []) : null,
    );
  }

  /** Every refused photo marked on its thumbnail; warnings can be kept; a duplicate animal offered instead. */
  function refused(r: Answer) {
    const j = r.json ?? {};
    picker.mark(new Map());
    if (j.code === 'photos_refused' && Array.isArray(j.refused)) {
      picker.mark(
        new Map(
          (j.refused as { index: number; reasons: string[]; warning: boolean }[]).map((x) => [
            x.index,
            { text: x.reasons.map(reasonText).join(', ') + (x.warning ? ` (${t('warning')})` : ''), warning: x.warning },
          ]),
        ),
      );
      // In the app's words: the server's sentence names its accept_warnings parameter; here it is a button.
      return answer(
        msg,
        notice('error', t('refused_title')),
        notice('info', errorText(r)),
        j.overridable
          ? [
              notice('info', t('keep_hint')),
              h(
                'button',
                { type: 'button', class: 'secondary', name: 'keep-anyway', onclick: () => void send({ accept_warnings: 'true' }) },
                t('keep_anyway'),
              ),
            ]
          : null,
      );
    }
    if (j.code === 'already_enrolled' && j.existing) {
      const enrolAnyway = () => void send({ accept_warnings: 'true' });
      return answer(msg, duplicateWarning(j.existing, { msg, files: () => picker.files(), enrolAnyway }));
    }
    answer(msg, notice('error', errorText(r)));
  }

  async function submit(e: Event) {
    e.preventDefault();
    if (!picker.files().length && !query) return answer(msg, notice('error', t('need_photos')));
    await send();
  }
  void renderFields();
  return h(
    'section',
    { class: 'card' },
    h('h2', {}, t('enrol_title')),
    query
      ? h(
          'div',
          { class: 'kept' },
          h('img', { class: 'kept-photo', src: URL.createObjectURL(query.file), alt: t('your_photo') }),
          notice('info', t('query_kept', { n: 2 })),
        )
      : null,
    h(
      'form',
      { onsubmit: submit, name: 'enrol' },
      kindChooser(kind, (k) => {
        kind = k;
        void renderFields();
      }),
      picker.el,
      inputs,
      locRow,
      h('button', { type: 'submit', class: 'primary' }, t('enrol')),
    ),
    msg,
  );
}
