import { call } from './api.js';
import { h } from './dom.js';
import { currentLang, t } from './i18n.js';
import type { Kind } from './kinds.js';

interface Species {
  id: string;
  kind: string;
  name_vi: string;
  name_en: string;
}
let catalog: Promise<Species[]> | null = null;

const CATALOG_KEY = 'markless.species';

/**
 * The species catalogue, read once per page. The last one read is kept on the device, so the
 * species pickers still work when the app is opened without signal (issue 39).
 */
export function species(): Promise<Species[]> {
  catalog ??= call('GET', '/api/species/catalog').then((r) => {
    if (r.ok) {
      try {
        localStorage.setItem(CATALOG_KEY, JSON.stringify(r.json.species));
      } catch {
        // Storage refused or full: the picker works online as before.
      }
      return r.json.species as Species[];
    }
    try {
      return JSON.parse(localStorage.getItem(CATALOG_KEY) ?? '[]') as Species[];
    } catch {
      return [];
    }
  });
  return catalog;
}

const KINDS: Record<Kind, string[]> = { tree: ['tree', 'fruit'], fruit: ['fruit'], animal: ['animal'] };
const key = (s: string) => s.normalize('NFC').trim().toLowerCase();

/** A species as a person reads it, in the app's language; an unknown spelling is shown as stored. */
export async function speciesName(stored: string | null | undefined): Promise<string> {
  if (!stored) return '';
  const hit = (await species()).find((s) => [s.id, s.name_vi, s.name_en].some((n) => key(n) === key(stored)));
  return hit ? (currentLang() === 'vi' ? hit.name_vi : hit.name_en) : stored;
}

/** A picker of the catalogue's species for a kind, in the app's language; the value sent is the catalogue id. */
export async function speciesSelect(kind: Kind, required: boolean): Promise<HTMLSelectElement> {
  const list = (await species()).filter((s) => KINDS[kind].includes(s.kind));
  const vi = currentLang() === 'vi';
  list.sort((a, b) => (vi ? a.name_vi : a.name_en).localeCompare(vi ? b.name_vi : b.name_en, vi ? 'vi' : 'en'));
  return h(
    'select',
    { name: 'species', required },
    h('option', { value: '' }, t('species_pick')),
    list.map((s) => h('option', { value: s.id }, vi ? `${s.name_vi} (${s.name_en})` : `${s.name_en} (${s.name_vi})`)),
  );
}
