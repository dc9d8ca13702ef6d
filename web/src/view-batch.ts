import { call, errorText } from './api.js';
import { field, h, mount, notice } from './dom.js';
import { t } from './i18n.js';
import { batchRows } from './batch-rows.js';
import { treeLabel } from './view-fruit-list.js';
import { fileField, treeInput } from './pickers.js';
import { when } from './timeline.js';

interface Batch {
  batch_id: string;
  status: string;
  total: number;
  done: number;
  failed: number;
  created_at: string;
  thumbnails: { url: string }[];
  tree: { name: string | null; code: string | null } | null;
  links: { csv: string };
}

/** The owner's earlier batches: a few photos of each, its tree, its counts; opening one shows its rows. */
function pastBatches(out: HTMLElement): HTMLElement {
  const box = h('div', { class: 'list past-batches' });
  void call('GET', '/api/fruit/batches').then((r) => {
    if (!r.ok) return mount(box, notice('error', errorText(r)));
    const batches = r.json.batches as Batch[];
    if (!batches.length) return mount(box, notice('info', t('nothing_yet')));
    mount(
      box,
      batches.map((b) =>
        h(
          'article',
          { class: 'item batch-item', 'data-id': b.batch_id },
          h(
            'span',
            { class: 'thumbs' },
            b.thumbnails.map((p) => h('img', { src: p.url, alt: '', loading: 'lazy' })),
          ),
          h(
            'span',
            {},
            h('strong', {}, when(b.created_at)),
            h(
              'small',
              {},
              [`${b.done} / ${b.total}${b.failed ? ` (✗ ${b.failed})` : ''}`, b.tree ? `${t('on_tree')} ${treeLabel(b.tree)}` : null]
                .filter(Boolean)
                .join(' · '),
            ),
            h(
              'span',
              { class: 'row' },
              h(
                'button',
                {
                  type: 'button',
                  class: 'link',
                  name: 'open-batch',
                  onclick: async () => {
                    const one = await call('GET', `/api/fruit/batch/${encodeURIComponent(b.batch_id)}`);
                    mount(out, one.ok ? batchRows(b.batch_id, one.json.rows) : notice('error', errorText(one)));
                  },
                },
                t('open_batch'),
              ),
              h('a', { href: b.links.csv, download: `batch-${b.batch_id}.csv` }, t('download_csv')),
            ),
          ),
        ),
      ),
    );
  });
  return h('section', { class: 'card' }, h('h2', {}, t('past_batches')), box);
}

/**
 * A packing-house batch: many fruit photos (or a zip) in one request, then a live progress bar
 * fed by the batch's server-sent events (the session cookie authenticates the stream).
 */
export function batchView(): HTMLElement {
  const files = h('input', { type: 'file', name: 'files', accept: 'image/*', multiple: true });
  const archive = h('input', { type: 'file', name: 'archive', accept: '.zip,application/zip' });
  const tree = treeInput();
  const bar = h('progress', { max: 1, value: 0 });
  const label = h('span', { class: 'progress-label' });
  const out = h('div', { 'aria-live': 'polite' });
  const progress = h('div', { class: 'progress', hidden: true }, bar, label);

  function show(done: number, failed: number, total: number) {
    bar.max = Math.max(1, total);
    // `done` already counts the failed rows (the server's count of finished rows): never add them twice.
    bar.value = Math.min(done, total);
    label.textContent = `${done} / ${total}${failed ? ` (✗ ${failed})` : ''}`;
  }
  async function finish(id: string) {
    let r = await call('GET', `/api/fruit/batch/${encodeURIComponent(id)}`);
    // Reached also when the stream drops early: keep asking until the batch says it is done.
    while (r.ok && r.json.status !== 'done') {
      show(r.json.done, r.json.failed, r.json.total);
      await new Promise((res) => setTimeout(res, 1000));
      r = await call('GET', `/api/fruit/batch/${encodeURIComponent(id)}`);
    }
    if (!r.ok) return mount(out, notice('error', errorText(r)));
    show(r.json.done, r.json.failed, r.json.total);
    mount(
      out,
      notice(
        'ok',
        t('batch_done'),
        ' ',
        h(
          'a',
          { class: 'button', href: `/api/fruit/batch/${encodeURIComponent(id)}/results.csv`, download: `batch-${id}.csv` },
          t('download_csv'),
        ),
      ),
      batchRows(id, r.json.rows),
    );
  }
  async function submit(e: Event) {
    e.preventDefault();
    const form = new FormData();
    for (const f of Array.from(files.files ?? [])) form.append('files', f, f.name);
    for (const f of Array.from(archive.files ?? [])) form.append('archive', f, f.name);
    if (tree.value.trim()) form.append('tree_id', tree.value.trim());
    if (!form.has('files') && !form.has('archive')) return mount(out, notice('error', t('need_photos')));
    mount(out, notice('info', t('working')));
    const r = await call('POST', '/api/fruit/batch', form);
    if (!r.ok) return mount(out, notice('error', errorText(r)));
    const id = r.json.batch_id as string;
    progress.hidden = false;
    show(0, 0, r.json.total);
    const es = new EventSource(r.json.links?.events ?? `/api/fruit/batch/${encodeURIComponent(id)}/events`);
    es.addEventListener('progress', (ev) => {
      const p = JSON.parse((ev as MessageEvent).data);
      show(p.done, p.failed, p.total);
    });
    es.addEventListener('done', () => {
      es.close();
      void finish(id);
    });
    // A dropped stream is not the end of the batch: ask for its state instead of guessing.
    es.onerror = () => {
      es.close();
      void finish(id);
    };
  }
  return h(
    'div',
    {},
    h(
      'section',
      { class: 'card' },
      h('h2', {}, t('batch_title')),
      h('p', {}, t('batch_hint')),
      h(
        'form',
        { onsubmit: submit, name: 'batch' },
        fileField(t('photos'), files),
        fileField(t('archive'), archive),
        field(t('tree_id'), tree),
        h('button', { type: 'submit', class: 'primary' }, t('start_batch')),
      ),
      progress,
      out,
    ),
    pastBatches(out),
  );
}
