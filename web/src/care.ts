/**
 * The care card of a tree, fruit lot or animal page (issue 24: the timeline records care events
 * and withdrawal status): whether harvest or sale is blocked now, until when and by which
 * product, and a form to log what was done. A logged action appears on the timeline too (the
 * server adds it there as an inherited event), so the page reloads after saving.
 */
import { call, errorText } from './api.js';
import { field, h, mount, notice } from './dom.js';
import { currentLang } from './i18n.js';
import { when } from './timeline.js';

const TEXT = {
  title: ['Chăm sóc và thời gian cách ly', 'Care and withdrawal'],
  blocked: ['Chưa được thu hoạch hay bán đến {until}', 'Not to be harvested or sold until {until}'],
  blocked_by: ['do {product}: {days} ngày ({source})', 'because of {product}: {days} days ({source})'],
  clear: ['Không có thời gian cách ly nào đang chạy.', 'No withdrawal period is running.'],
  action: ['Việc đã làm', 'What was done'],
  product: ['Sản phẩm', 'Product'],
  dose: ['Liều lượng', 'Dose'],
  interval: ['Số ngày cách ly trên nhãn', 'Withdrawal days on the label'],
  note: ['Ghi chú', 'Note'],
  save: ['Lưu việc chăm sóc', 'Save the care entry'],
  saved: ['Đã lưu.', 'Saved.'],
  from_label: ['số ngày trên nhãn, do bạn nhập', "the label's days, as you entered them"],
  banned: ['Cảnh báo: chất cấm hoặc hạn chế: {names}', 'Warning: banned or restricted ingredient: {names}'],
} as const;
const tx = (k: keyof typeof TEXT, p: Record<string, string | number> = {}) =>
  TEXT[k][currentLang() === 'vi' ? 0 : 1].replace(/\{(\w+)\}/g, (_, x: string) => String(p[x] ?? ''));

type Target = 'tree' | 'fruit' | 'animal';

export async function careCard(type: Target, id: string): Promise<HTMLElement> {
  const target = new URLSearchParams({ target_type: type, target_id: id });
  const status = await call('GET', `/api/care/withdrawal?${target}`);
  const state = h('div', { class: 'withdrawal', 'aria-live': 'polite' });
  if (!status.ok) mount(state, notice('error', errorText(status)));
  else if (status.json.blocked) {
    const first = status.json.blocking[0];
    mount(
      state,
      notice(
        'warn',
        tx('blocked', { until: when(status.json.until) }),
        first ? h('br') : null,
        first
          ? tx('blocked_by', {
              product: first.product_name,
              days: first.interval_days,
              // The product store's source is a regulation's title; a farmer's own interval gets our words, in the app's language.
              source: first.product_id ? first.source.title : tx('from_label'),
            })
          : null,
      ),
    );
  } else mount(state, notice('ok', tx('clear')));

  const input = (name: string, attrs: Record<string, string> = {}) => h('input', { name, autocomplete: 'off', ...attrs });
  const action = input('action', { placeholder: currentLang() === 'vi' ? 'phun thuốc, bón phân, điều trị…' : 'spray, fertilise, treat…' });
  const product = input('product_name');
  const dose = input('dose');
  const interval = input('interval_days', { type: 'number', min: '0', max: '3650', inputmode: 'numeric' });
  const note = input('note');
  const msg = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    {
      name: 'care-log',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        const body = new FormData();
        body.append('target_type', type);
        body.append('target_id', id);
        for (const [k, el] of [
          ['action', action],
          ['product_name', product],
          ['dose', dose],
          ['interval_days', interval],
          ['note', note],
        ] as const) {
          if (el.value.trim()) body.append(k, el.value.trim());
        }
        const r = await call('POST', '/api/care/log', body, { queue: true });
        if (!r.ok) return mount(msg, notice(r.json?.queued ? 'warn' : 'error', errorText(r)));
        const banned = (r.json.entry?.banned ?? []) as { name: string }[];
        if (banned.length) return mount(msg, notice('error', tx('banned', { names: banned.map((b) => b.name).join(', ') })));
        // The withdrawal and the timeline both changed: draw the page again.
        window.dispatchEvent(new HashChangeEvent('hashchange'));
      },
    },
    h('div', { class: 'row wrap' }, field(tx('action'), action), field(tx('product'), product)),
    h('div', { class: 'row wrap' }, field(tx('dose'), dose), field(tx('interval'), interval)),
    field(tx('note'), note),
    h('button', { type: 'submit', class: 'primary' }, tx('save')),
    msg,
  );
  return h('section', { class: 'card care' }, h('h2', {}, tx('title')), state, form);
}
