import { call, errorText } from './api.js';
import { h, mount, notice } from './dom.js';
import { t, type TextKey } from './i18n.js';
import { fruitTitle, tf } from './i18n-fruit.js';
import { ROUTES } from './kinds.js';
import { treeLabel } from './view-fruit-list.js';

/** A fruit a row's answer offered (api/src/routes/fruit-batch.route.ts `Candidate`). */
interface Candidate {
  fruit_id: string;
  short_code: string;
  probability: number;
  name?: string;
  thumbnail?: string;
  tree_name?: string;
  tree_code?: string;
}
/** One row of a batch: one fruit, as GET /api/fruit/batch/{id} answers it. */
export interface Row {
  index: number;
  file_name: string;
  status: string;
  probability?: number;
  verdict?: string;
  reason?: string;
  query_id?: string;
  fruit_id?: string;
  fruit_name?: string;
  fruit_short_code?: string;
  fruit_thumbnail?: string;
  photo_url?: string;
  tree_name?: string;
  tree_code?: string;
  candidates?: Candidate[];
  decision?: string;
  decided_fruit_id?: string;
  decided_fruit_name?: string;
  decided_fruit_short_code?: string;
  decided_fruit_thumbnail?: string;
  decided_tree_name?: string;
  decided_tree_code?: string;
}

const verdictWord = (v: string) => (['match', 'uncertain', 'no_match'].includes(v) ? t(`row_${v}` as TextKey) : v);
const pct = (p: number | undefined) => (p == null ? '' : `${Math.round(p * 100)}%`);
const thumb = (src: string | undefined) => (src ? h('img', { class: 'thumb', src, alt: '', loading: 'lazy' }) : null);

/** A row waits for the owner while its answer was unsure, it offered fruit, and nobody has decided it yet. */
const undecided = (r: Row) => r.status === 'done' && r.verdict === 'uncertain' && !r.decision && !!r.query_id && !!r.candidates?.length;

/**
 * The fruit a row stands for, as the packing house reads it: the one the owner decided, else the
 * match, else (unsure) the first candidate, marked with "?". Null when there is none.
 */
function shownFruit(r: Row): { id: string; title: string; tree: string; thumbnail?: string; unsure: boolean } | null {
  const tree = (name?: string, code?: string) => (name || code ? treeLabel({ name: name ?? null, code: code ?? null }) : '');
  if (r.decision) {
    if (!r.decided_fruit_id) return null;
    const title = fruitTitle({ name: r.decided_fruit_name, short_code: r.decided_fruit_short_code, fruit_id: r.decided_fruit_id });
    return {
      id: r.decided_fruit_id,
      title,
      tree: tree(r.decided_tree_name, r.decided_tree_code),
      thumbnail: r.decided_fruit_thumbnail,
      unsure: false,
    };
  }
  if (!r.fruit_id) return null;
  return {
    id: r.fruit_id,
    title: fruitTitle({ name: r.fruit_name, short_code: r.fruit_short_code, fruit_id: r.fruit_id }),
    tree: tree(r.tree_name, r.tree_code),
    thumbnail: r.fruit_thumbnail,
    unsure: r.verdict !== 'match',
  };
}

type Decide = (r: Row, chosen: Candidate | null, rank: number, msg: HTMLElement) => Promise<void>;

/** "This one" on each candidate and "None of these": the decision a row was waiting for. */
function decideBlock(r: Row, decide: Decide): HTMLElement {
  const msg = h('div', { 'aria-live': 'polite' });
  return h(
    'div',
    { class: 'decide' },
    h('p', { class: 'hint' }, tf('decide_hint')),
    r.candidates!.map((c, rank) =>
      h(
        'div',
        { class: 'choice', 'data-id': c.fruit_id },
        thumb(c.thumbnail),
        h(
          'span',
          {},
          h('b', {}, fruitTitle(c)),
          c.tree_name || c.tree_code
            ? h('small', {}, ` ${t('on_tree')} ${treeLabel({ name: c.tree_name ?? null, code: c.tree_code ?? null })}`)
            : null,
          ` · ${pct(c.probability)}`,
        ),
        h('button', { type: 'button', class: 'primary', name: 'this-one', onclick: () => decide(r, c, rank, msg) }, tf('this_one')),
      ),
    ),
    h(
      'button',
      { type: 'button', class: 'secondary', name: 'none-of-these', onclick: () => decide(r, null, -1, msg) },
      tf('none_of_these'),
    ),
    msg,
  );
}

/** The verdict cell: the service's verdict, then the owner's decision, or the buttons to make it. */
function verdictCell(r: Row, decide: Decide): HTMLElement {
  if (r.status === 'failed') return h('td', { 'data-label': tf('col_verdict') }, r.reason ?? t('run_failed'));
  const words = [r.verdict ? verdictWord(r.verdict) : r.status, pct(r.probability)].filter(Boolean).join(' · ');
  const decided = r.decision ? h('p', { class: 'decided' }, r.decided_fruit_id ? `✓ ${tf('decided_this')}` : tf('decided_none')) : null;
  return h(
    'td',
    { class: 'verdict', 'data-label': tf('col_verdict') },
    h('span', { class: `verdict-word ${r.verdict ?? ''}` }, words),
    decided,
    undecided(r) ? decideBlock(r, decide) : null,
  );
}

function rowLine(r: Row, decide: Decide): HTMLElement {
  const f = r.status === 'done' ? shownFruit(r) : null;
  const fruitCell = f
    ? h(
        'span',
        { class: 'match' },
        thumb(f.thumbnail),
        h('a', { href: `#/fruit/${encodeURIComponent(f.id)}` }, f.title),
        f.unsure ? ' ?' : '',
      )
    : r.status === 'done'
      ? h('span', { class: 'hint' }, r.decision ? '—' : tf('no_fruit'))
      : '';
  return h(
    'tr',
    { class: `${r.status}${undecided(r) ? ' undecided' : ''}${r.decision ? ' decided' : ''}`, 'data-index': r.index },
    h('td', { 'data-label': '#' }, r.index + 1),
    h('td', { class: 'file', 'data-label': t('file') }, thumb(r.photo_url), r.file_name),
    h('td', { class: 'fruit', 'data-label': tf('col_fruit') }, fruitCell),
    h('td', { class: 'tree', 'data-label': tf('col_tree') }, f?.tree ?? ''),
    verdictCell(r, decide),
  );
}

/**
 * A batch's rows as a table a packing house reads without opening anything (issue 39): each fruit
 * by name or short code, its tree by name and printed code, the verdict; an unsure row is decided
 * here, and each decision is a label on the row's stored answer (/api/fruit/identify_verdict, the
 * path every identify answer is labelled through, so learning and calibration see it). The table
 * is redrawn from the server after each decision, so it shows what was stored.
 */
export function batchRows(batchId: string, rows: Row[]): HTMLElement {
  const box = h('div', { class: 'batch-rows' });
  const decide: Decide = async (r, chosen, rank, msg) => {
    // As the review screen labels: the first candidate is `correct`, another is `other` naming it, none is `other` alone.
    const form = new URLSearchParams({ query_id: r.query_id!, verdict: chosen && rank === 0 ? 'correct' : 'other' });
    if (chosen && rank > 0) form.set('correct_id', chosen.fruit_id);
    const a = await call('POST', ROUTES.fruit.verdict, form);
    if (!a.ok) return mount(msg, notice('error', errorText(a)));
    const b = await call('GET', `/api/fruit/batch/${encodeURIComponent(batchId)}`);
    if (b.ok) draw(b.json.rows as Row[]);
    else mount(msg, notice('error', errorText(b)));
  };
  function draw(list: Row[]) {
    mount(
      box,
      h(
        'table',
        { class: 'rows' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', {}, '#'),
            h('th', {}, t('file')),
            h('th', {}, tf('col_fruit')),
            h('th', {}, tf('col_tree')),
            h('th', {}, tf('col_verdict')),
          ),
        ),
        h(
          'tbody',
          {},
          list.map((r) => rowLine(r, decide)),
        ),
      ),
    );
  }
  draw(rows);
  return box;
}
