import { call } from './api.js';
import { h } from './dom.js';
import { t, type TextKey } from './i18n.js';

/**
 * Farm and tree fields that suggest what the account already has (issue 24: "the farm remembered
 * per account; trees chosen from a list or by their printed code"). The inputs stay free text: a
 * new farm is typed once, and a tree's printed code is accepted wherever a tree id is asked for.
 */
const FARM_KEY = 'markless.farm';

/** The farm id last used on this device (or, on a new device, the account's latest farm). */
export const lastFarm = (): string => globalThis.localStorage?.getItem(FARM_KEY) ?? '';
export function rememberFarm(v: string): void {
  if (v) localStorage.setItem(FARM_KEY, v);
}

let farms: string[] = [];
/** The account's farms from GET /api/me, latest first: a device with no farm yet takes the latest. */
export function learnFarms(list: readonly string[]): void {
  farms = [...list];
  if (!lastFarm() && farms[0]) rememberFarm(farms[0]);
  fill(
    'my-farms',
    farms.map((f) => [f, '']),
  );
}

/** One shared <datalist> per list, kept in the document so any input can point at it. */
function fill(id: string, options: readonly (readonly [string, string])[]): void {
  let list = document.getElementById(id);
  if (!list) {
    list = h('datalist', { id });
    document.body.appendChild(list);
  }
  list.replaceChildren(...options.map(([value, label]) => h('option', { value }, label)));
}

/** A farm id input, filled with this device's farm and suggesting the account's others. */
export function farmInput(required = false): HTMLInputElement {
  return h('input', { name: 'farm_id', autocomplete: 'off', value: lastFarm(), list: 'my-farms', required });
}

let trees: Promise<void> | null = null;
/**
 * A tree input suggesting the account's trees by printed code, with name and species shown beside
 * each; the list is fetched once per page load.
 */
export function treeInput(attrs: Record<string, string> = {}): HTMLInputElement {
  trees ??= call('GET', '/api/trees')
    .then((r) => {
      const list = r.ok ? (r.json.trees as { tree_id: string; code?: string | null; name?: string | null }[]) : [];
      fill(
        'my-trees',
        list.map((x) => [x.code ?? x.tree_id, x.name ?? t('unnamed')]),
      );
    })
    .catch(() => undefined);
  return h('input', { name: 'tree_id', autocomplete: 'off', list: 'my-trees', ...attrs });
}

/** Forget the fetched tree list (a new tree was enrolled). */
export function forgetLists(): void {
  trees = null;
}

/** Signing out: the next account on this device must not start on this one's farm or trees. */
export function forgetAccount(): void {
  forgetLists();
  farms = [];
  localStorage.removeItem(FARM_KEY);
  fill('my-farms', []);
  fill('my-trees', []);
}

/** The button's words for a file input, from what it accepts. */
function chooseKey(accept: string): TextKey {
  if (accept.startsWith('image')) return 'choose_photos';
  if (accept.startsWith('video')) return 'choose_video';
  if (accept.includes('zip')) return 'choose_zip';
  return 'choose_file';
}

/**
 * A labelled file field in the app's language (issue 39): the browser's own "Choose Files / No
 * file chosen" is in the browser's language, so the input stays (visually hidden, still focusable
 * and announced) inside a label that shows a button and how many files are chosen. The focus ring
 * is drawn on the button (app.css `.file-field:focus-within`). Same shape as dom.ts `field`.
 */
export function fileField(label: string, input: HTMLInputElement): HTMLLabelElement {
  input.classList.add('visually-hidden');
  const chosen = h('span', { class: 'file-count' }, t('files_none'));
  input.addEventListener('change', () => {
    const n = input.files?.length ?? 0;
    chosen.textContent = n ? t('files_chosen', { n }) : t('files_none');
  });
  return h(
    'label',
    { class: 'field file-field' },
    h('span', {}, label),
    h('span', { class: 'button secondary file-button' }, t(chooseKey(input.accept))),
    chosen,
    input,
  );
}
