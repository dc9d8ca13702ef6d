import { call, errorText } from './api.js';
import { field, h, mount, notice } from './dom.js';
import { t } from './i18n.js';

/**
 * The grower's public name: what a shopper reads as the grower on the pages of published trees
 * (/t/{code}). Empty withdraws it; the username is never shown in its place.
 */
export function publicNameCard(): HTMLElement {
  const input = h('input', { name: 'public_name', maxlength: 80, autocomplete: 'organization' });
  const out = h('div', { 'aria-live': 'polite' });
  void call('GET', '/api/me/public-name').then((r) => {
    if (r.ok) input.value = r.json.public_name ?? '';
  });
  async function save(e: Event) {
    e.preventDefault();
    const r = await call('PUT', '/api/me/public-name', { public_name: input.value.trim() });
    if (!r.ok) return mount(out, notice('error', errorText(r)));
    input.value = r.json.public_name ?? '';
    mount(out, notice('ok', r.json.public_name ? t('public_name_saved', { name: r.json.public_name }) : t('public_name_withdrawn')));
  }
  return h(
    'section',
    { class: 'card' },
    h('h2', {}, t('public_name_title')),
    h('p', { class: 'hint' }, t('public_name_hint')),
    h(
      'form',
      { name: 'public-name', class: 'row', onsubmit: save },
      field(t('public_name_label'), input),
      h('button', { type: 'submit', class: 'secondary' }, t('save')),
    ),
    out,
  );
}
