import { call, errorText } from './api.js';
import { field, h, mount, notice } from './dom.js';
import { t } from './i18n.js';
import { entityHash, kindChooser, ROUTES, type Kind } from './kinds.js';
import { photoPicker } from './photos.js';

const FIELDS: Record<Kind, Array<[string, 'farm' | 'species' | 'name' | 'zone' | 'tree_id', boolean]>> = {
  tree: [['species', 'species', false], ['farm_id', 'farm', false], ['name', 'name', false]],
  fruit: [['tree_id', 'tree_id', false], ['species', 'species', false]],
  animal: [['species', 'species', true], ['farm_id', 'farm', true], ['name', 'name', false], ['zone', 'zone', false]],
};

/** Enrol a tree, fruit or animal from photos. */
export function enrolView(): HTMLElement {
  let kind: Kind = 'tree';
  const picker = photoPicker();
  const inputs = h('div', { class: 'grid2' });
  const values: Record<string, HTMLInputElement> = {};
  const msg = h('div', { 'aria-live': 'polite' });
  // The tree's coarse location makes its traceability code; the phone knows it better than a typed number.
  const loc = { lat: '', lon: '' };
  const locText = h('span', { class: 'hint' });
  const locate = h('button', {
    type: 'button', class: 'secondary', name: 'locate',
    onclick: () => navigator.geolocation?.getCurrentPosition(
      (p) => { loc.lat = p.coords.latitude.toFixed(6); loc.lon = p.coords.longitude.toFixed(6); locText.textContent = ` ${loc.lat}, ${loc.lon}`; },
      () => { locText.textContent = ` ${t('location_failed')}`; },
      { enableHighAccuracy: true, timeout: 15_000 }),
  }, t('attach_location'));
  const locRow = h('p', { class: 'row wrap' }, locate, locText);
  function renderFields() {
    locRow.hidden = kind !== 'tree';
    mount(inputs, FIELDS[kind].map(([name, label, required]) => {
      values[name] ??= h('input', { name, autocomplete: 'off' });
      values[name]!.required = required;
      return field(t(label), values[name]!);
    }));
  }
  async function submit(e: Event) {
    e.preventDefault();
    if (!picker.files().length) return mount(msg, notice('error', t('need_photos')));
    const form = new FormData();
    for (const [name] of FIELDS[kind]) if (values[name]?.value.trim()) form.append(name, values[name]!.value.trim());
    if (kind === 'tree' && loc.lat) {
      form.append('lat', loc.lat);
      form.append('lon', loc.lon);
    }
    for (const f of picker.files()) form.append('files', f, f.name);
    mount(msg, notice('info', t('working')));
    const r = await call('POST', ROUTES[kind].enrol, form);
    if (!r.ok) return mount(msg, notice('error', errorText(r)));
    picker.clear();
    mount(msg, notice('ok', t('enrolled'), ' ', h('a', { href: entityHash(kind, r.json), class: 'button' }, t('open'))));
  }
  renderFields();
  return h('section', { class: 'card' },
    h('h2', {}, t('enrol_title')),
    h('form', { onsubmit: submit, name: 'enrol' },
      kindChooser(kind, (k) => { kind = k; renderFields(); }),
      picker.el, inputs, locRow,
      h('button', { type: 'submit', class: 'primary' }, t('enrol'))),
    msg);
}
