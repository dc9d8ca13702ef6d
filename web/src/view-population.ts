import { call, errorText } from './api.js';
import { field, h, mount, notice } from './dom.js';
import { t, type TextKey } from './i18n.js';
import { photoPicker } from './photos.js';
import { when } from './timeline.js';
import { farmInput, rememberFarm } from './pickers.js';

const METHODS = ['visual', 'photo', 'video', 'drone', 'gate', 'other'];

/** The herd dashboard: total head, each zone's status, the alerts of the last 48 hours, and a count form. */
export function populationView(): HTMLElement {
  const farm = farmInput(true);
  const board = h('div', { 'aria-live': 'polite' });
  const zone = h('input', { name: 'zone', required: true, autocomplete: 'off' });
  const count = h('input', { name: 'count', type: 'number', min: 0, inputmode: 'numeric', required: true });
  const method = h(
    'select',
    { name: 'method' },
    METHODS.map((m) => h('option', { value: m }, t(`method_${m}` as TextKey))),
  );
  const picker = photoPicker();
  const sent = h('div', { 'aria-live': 'polite' });

  async function load() {
    const f = farm.value.trim();
    if (!f) return;
    rememberFarm(f);
    const [d, a] = await Promise.all([
      call('GET', `/api/population/farm/${encodeURIComponent(f)}`),
      call('GET', `/api/population/alerts/${encodeURIComponent(f)}`),
    ]);
    if (!d.ok) return mount(board, notice('error', errorText(d)));
    const zones = (d.json.zones as any[]).map((z) =>
      h(
        'tr',
        { class: `zone-${z.status}`, title: z.counted_at ? when(z.counted_at) : '' },
        h('td', {}, z.zone),
        h('td', {}, `${z.latest_count ?? '—'} / ${z.enrolled}`),
        h('td', {}, h('span', { class: `badge ${z.status}` }, t(`zone_${z.status}` as TextKey))),
      ),
    );
    const alerts = a.ok ? (a.json.alerts as any[]) : [];
    mount(
      board,
      h(
        'div',
        { class: 'stats' },
        h('div', {}, h('b', { class: 'big' }, d.json.total_head ?? '—'), h('span', {}, t('total_head'))),
        h('div', {}, h('b', { class: 'big' }, d.json.enrolled_head), h('span', {}, t('enrolled_head'))),
      ),
      h(
        'table',
        {},
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            [t('zone'), `${t('latest')} / ${t('enrolled_head')}`, ''].map((x) => h('th', {}, x)),
          ),
        ),
        h('tbody', {}, zones),
      ),
      h('h3', {}, t('alerts')),
      alerts.length
        ? h(
            'ul',
            { class: 'alerts' },
            alerts.map((al) =>
              h(
                'li',
                { class: `alert ${al.rule}` },
                h('span', {}, al.message, h('small', {}, when(al.created_at))),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'secondary',
                    onclick: async () => {
                      await call('POST', `/api/population/alerts/${al.alert_id}/resolve`, {});
                      void load();
                    },
                  },
                  t('resolve'),
                ),
              ),
            ),
          )
        : notice('ok', t('no_alerts')),
    );
  }

  async function submit(e: Event) {
    e.preventDefault();
    const form = new FormData();
    for (const [k, v] of [
      ['farm_id', farm.value.trim()],
      ['zone', zone.value.trim()],
      ['count', count.value],
      ['method', method.value],
    ] as const)
      form.append(k, v);
    for (const f of picker.files()) form.append('files', f, f.name);
    const r = await call('POST', '/api/population/count', form);
    if (!r.ok) return mount(sent, notice('error', errorText(r)));
    picker.clear();
    mount(sent, ...(r.json.alerts as any[]).map((al) => notice('warn', al.message)), r.json.alerts.length ? null : notice('ok', '✓'));
    void load();
  }

  void load();
  return h(
    'div',
    {},
    h(
      'section',
      { class: 'card' },
      h('h2', {}, t('pop_title')),
      h(
        'form',
        {
          class: 'row',
          onsubmit: (e: Event) => {
            e.preventDefault();
            void load();
          },
        },
        field(t('farm'), farm),
        h('button', { type: 'submit', class: 'secondary' }, t('load')),
      ),
      board,
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, t('send_count')),
      h(
        'form',
        { onsubmit: submit, name: 'count' },
        h('div', { class: 'grid3' }, field(t('zone'), zone), field(t('count'), count), field(t('method'), method)),
        picker.el,
        h('button', { type: 'submit', class: 'primary' }, t('send_count')),
      ),
      sent,
    ),
  );
}
