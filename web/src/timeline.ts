import { h } from './dom.js';
import { currentLang, t, type TextKey } from './i18n.js';

type EventWord<K> = K extends `ev_${infer T}` ? T : never;
/** Event types the app names in its language; `satisfies` makes tsc check that each has its `ev_` text. */
const TYPE_WORDS: ReadonlySet<string> = new Set([
  'enroll',
  'identification_confirmed',
  'photos_added',
  'merged',
  'merged_into',
  'unmerged',
  'restored',
  'vaccination',
  'calving',
  'treatment',
  'deleted',
  'care_deleted',
  'survey',
  'birth',
  'transfer',
  'slaughter',
  'cut',
  'pack',
  'lineage',
  'boundary',
  'weighing',
  'publish',
] as const satisfies readonly EventWord<TextKey>[]);
/** An event type in the app's language; a type of the owner's own stays as written. */
const typeWord = (type: string) => (TYPE_WORDS.has(type) ? t(`ev_${type}` as TextKey) : type);

interface Event {
  event_id: string;
  body: Record<string, unknown>;
  created_at: string;
  approval?: string;
  visibility?: string;
  inherited_from?: { entity_type: string; entity_id: string };
}

export const when = (iso: string) =>
  new Date(iso).toLocaleString(currentLang() === 'vi' ? 'vi-VN' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' });

/** A short line for an event body: its type and the few fields a person reads. */
function summary(body: Record<string, unknown>): string {
  const parts = [body.action, body.product_name ?? body.product, body.dose, body.note, body.text, body.name].filter(
    (x) => typeof x === 'string' && x,
  );
  if (typeof body.type === 'string' && body.type !== 'care') parts.unshift(typeWord(body.type));
  if (Array.isArray(body.images) && parts.length === 1) parts.push(`${body.images.length} 📷`);
  if (parts.length) return parts.join(' · ');
  return Object.entries(body)
    .slice(0, 4)
    .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(' · ');
}

/** The timeline as a list, care events marked (those of the whole farm as such), with the chain's integrity. */
export function timelineList(tl: { events: Event[]; chain_ok?: boolean }): HTMLElement {
  return h(
    'div',
    { class: 'timeline' },
    tl.chain_ok === undefined
      ? null
      : h('p', { class: `notice ${tl.chain_ok ? 'ok' : 'error'}` }, tl.chain_ok ? t('chain_ok') : t('chain_broken')),
    h(
      'ol',
      {},
      [...tl.events].reverse().map((e) => {
        const care = Boolean(e.inherited_from) || e.body.type === 'care';
        return h(
          'li',
          { class: care ? 'care' : '' },
          h('time', { datetime: e.created_at }, when(e.created_at)),
          h(
            'span',
            {},
            // A farm's care reaches every animal and tree on it; the entity's own care (its care
            // log's entries come marked as inherited from 'care') is just care.
            care ? h('b', {}, t(e.inherited_from?.entity_type === 'farm' ? 'care_event_farm' : 'care_event'), ': ') : null,
            summary(e.body),
            e.approval === 'pending' ? ' ⏳' : '',
          ),
        );
      }),
    ),
  );
}
