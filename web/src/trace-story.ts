import { h } from './dom.js';
import { currentLang, t } from './i18n.js';

/**
 * A tree's public timeline told to a shopper (issue 39 item 8): each event one sentence in plain
 * words (planted, cared for, harvested, enrolled, recognised…), newest first, with its date. The
 * hashes, CIDs and chain state stay with the proof on the page; nothing here names them.
 */

/** A care activity of the species catalogue, to name a care event's `action` in words. */
export interface Activity {
  id: string;
  name_vi: string;
  name_en: string;
}

interface StoryEvent {
  event_id: string;
  body: Record<string, unknown>;
  created_at: string;
}

const PLANTED = new Set(['plant', 'planted', 'planting', 'trong', 'trồng', 'trồng cây']);
const HARVESTED = new Set(['harvest', 'harvested', 'thu hoạch', 'thu_hoach']);
const key = (s: unknown) => (typeof s === 'string' ? s.normalize('NFC').trim().toLowerCase() : '');
const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** The date alone, in the page's language: a shopper reads days, not minutes. */
export const day = (iso: string) =>
  new Date(iso).toLocaleDateString(currentLang() === 'vi' ? 'vi-VN' : 'en-GB', { day: 'numeric', month: 'long', year: 'numeric' });

/** A care event's activity in words: the catalogue's name for its id, else what the grower typed. */
function careWhat(body: Record<string, unknown>, activities: Activity[]): string | null {
  const raw = text(body.action) ?? text(body.activity);
  const hit = raw ? activities.find((a) => [a.id, a.name_vi, a.name_en].some((n) => key(n) === key(raw))) : undefined;
  const what = hit ? (currentLang() === 'vi' ? hit.name_vi : hit.name_en) : raw;
  const product = text(body.product_name) ?? text(body.product);
  return what && product ? `${what} (${product})` : (what ?? product);
}

/** One event as a sentence. */
export function storySentence(body: Record<string, unknown>, activities: Activity[]): string {
  const type = key(body.type);
  const action = key(body.action);
  if (type === 'enroll') return typeof body.images === 'number' ? t('story_enroll', { n: body.images }) : t('story_enroll_plain');
  if (PLANTED.has(type) || PLANTED.has(action)) return t('story_planted');
  if (HARVESTED.has(type) || HARVESTED.has(action)) return t('story_harvested');
  if (type === 'care' || (!type && action)) {
    const what = careWhat(body, activities);
    return what ? t('story_cared', { what }) : t('story_cared_plain');
  }
  if (type === 'identification_confirmed') return t('story_identified');
  if (type === 'photos_added') {
    const n = Array.isArray(body.images) ? body.images.length : typeof body.images === 'number' ? body.images : 1;
    return t('story_photos', { n });
  }
  if (type === 'publish') return t('story_published');
  if (type === 'pack') return t('story_packed');
  if (type === 'transfer') return t('story_transfer');
  if (type === 'boundary') return t('story_boundary');
  const note = text(body.note) ?? text(body.text);
  return note ? t('story_note', { text: note }) : t('story_other');
}

/** The story as a list, newest first; `.timeline` so it reads like the app's other timelines. */
export function storyList(events: StoryEvent[], activities: Activity[]): HTMLElement {
  if (!events.length) return h('p', { class: 'hint' }, t('story_empty'));
  return h(
    'ol',
    { class: 'timeline story' },
    [...events]
      .reverse()
      .map((e) =>
        h(
          'li',
          { 'data-type': typeof e.body.type === 'string' ? e.body.type : '' },
          h('time', { datetime: e.created_at }, day(e.created_at)),
          h('span', {}, storySentence(e.body, activities)),
        ),
      ),
  );
}
