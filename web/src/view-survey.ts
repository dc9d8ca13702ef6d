import { call, errorText } from './api.js';
import { blobUrl, field, h, mount, notice } from './dom.js';
import { currentLang } from './i18n.js';
import { speciesName } from './species.js';
import { when } from './timeline.js';
import { farmInput, rememberFarm, treeInput } from './pickers.js';

/** This view's own texts (Vietnamese, English), kept here so the shared catalogue stays as it is. */
const TEXT = {
  title: ['Khảo sát bằng video', 'Video survey'],
  video: ['Video (flycam hoặc điện thoại)', 'Video (drone or phone)'],
  kind: ['Loại', 'Kind'],
  animal: ['Vật nuôi', 'Animals'],
  fruit: ['Quả trên cây', 'Fruit on a tree'],
  species: ['Loài', 'Species'],
  farm: ['Trang trại', 'Farm'],
  tree: ['Mã cây (nếu đếm quả)', 'Tree id (fruit)'],
  send: ['Gửi khảo sát', 'Start survey'],
  reading: ['Đang đọc: {f} khung hình, {t} vệt', 'Reading: {f} frames, {t} tracks'],
  count: ['Đếm được', 'Counted'],
  known: ['Đã nhận ra', 'Known'],
  uncertain: ['Chưa chắc', 'Uncertain'],
  unknown: ['Con lạ', 'Strangers'],
  not_seen: ['Không thấy', 'Not seen'],
  confirm: ['Đúng', 'Confirm'],
  correct: ['Sửa thành…', 'Correct to…'],
  stranger: ['Con lạ (chưa đăng ký)', 'A stranger (not enrolled)'],
  enrol: ['Đăng ký con mới', 'Enrol as new'],
  recent: ['Các lần khảo sát', 'Your surveys'],
  open: ['Mở', 'Open'],
  failed: ['Không khảo sát được', 'Survey failed'],
  queued: ['Đang chờ', 'Queued'],
  running: ['Đang xử lý', 'Running'],
  done: ['Xong', 'Done'],
} as const;
/** A survey's status in words; an unknown one as stored. */
const statusText = (s: string) => (s in TEXT ? tx(s as keyof typeof TEXT) : s);
const tx = (k: keyof typeof TEXT, p: Record<string, string | number> = {}) =>
  TEXT[k][currentLang() === 'vi' ? 0 : 1].replace(/\{(\w+)\}/g, (_, x: string) => String(p[x] ?? ''));

const VERDICT: Record<string, keyof typeof TEXT> = { match: 'known', uncertain: 'uncertain', no_match: 'unknown', counted: 'count' };

/**
 * Surveys: send a drone or phone video, watch its progress, then review its tracks as strips of
 * thumbnails with their verdicts; confirming or correcting one stores an identify_verdict label
 * and the counts update (POST /api/survey/{id}/tracks/{n}/review).
 */
export function surveyView(): HTMLElement {
  const file = h('input', { type: 'file', accept: 'video/*', required: true });
  const kind = h('select', { name: 'kind' }, h('option', { value: 'animal' }, tx('animal')), h('option', { value: 'fruit' }, tx('fruit')));
  const species = h('input', { name: 'species', value: 'cattle', autocomplete: 'off' });
  const farm = farmInput();
  const tree = treeInput();
  const status = h('div', { 'aria-live': 'polite' });
  const board = h('div', {});
  const recent = h('div', {});

  function render(s: any) {
    if (s.status === 'failed') return mount(board, notice('error', `${tx('failed')}: ${s.error?.message ?? ''}`));
    if (s.status !== 'done') return mount(board, notice('info', tx('reading', { f: s.frames_read, t: s.tracks })));
    const r = s.result;
    const names = new Map<string, string>(
      [...r.known, ...r.not_seen].map((k: any) => [k.individual_id, k.name ?? k.individual_id.slice(0, 8)]),
    );
    const strip = (t: any) => {
      const pick = h(
        'select',
        {},
        h('option', { value: '' }, tx('correct')),
        h('option', { value: 'stranger' }, tx('stranger')),
        [...names.entries()].map(([id, n]) => h('option', { value: id }, n)),
      );
      const review = async (body: Record<string, unknown>) => {
        const a = await call('POST', `/api/survey/${s.survey_id}/tracks/${t.track}/review`, body);
        if (!a.ok) return mount(status, notice('error', errorText(a)));
        render({ ...s, result: a.json.result });
      };
      // One tap: the track's frames become a new animal of the survey's species and farm.
      const enrol = async () => {
        const a = await call('POST', `/api/survey/${s.survey_id}/tracks/${t.track}/enrol`, {});
        if (!a.ok) return mount(status, notice('error', errorText(a)));
        void open(s.survey_id);
      };
      pick.addEventListener(
        'change',
        () => pick.value && void review({ action: 'correct', individual_id: pick.value === 'stranger' ? null : pick.value }),
      );
      const who = t.review
        ? t.review.individual_id
          ? names.get(t.review.individual_id)
          : tx('stranger')
        : t.individual_id
          ? names.get(t.individual_id)
          : '';
      return h(
        'li',
        { class: `track ${t.verdict}` },
        h(
          'div',
          { class: 'thumbs' },
          t.frames.map((cid: string) => h('img', { src: blobUrl(cid), alt: `track ${t.track}`, loading: 'lazy', height: 72 })),
        ),
        h(
          'span',
          {},
          `#${t.track} `,
          h('span', { class: `badge ${t.verdict}` }, tx(VERDICT[t.verdict] ?? 'count')),
          ` ${who ?? ''}`,
          t.review ? ' ✓' : '',
        ),
        r.kind === 'fruit'
          ? null
          : h(
              'span',
              { class: 'row' },
              t.verdict === 'uncertain'
                ? null
                : h('button', { type: 'button', class: 'secondary', onclick: () => void review({ action: 'confirm' }) }, tx('confirm')),
              pick,
              t.verdict === 'match' ? null : h('button', { type: 'button', class: 'secondary', onclick: () => void enrol() }, tx('enrol')),
            ),
      );
    };
    mount(
      board,
      h(
        'div',
        { class: 'stats' },
        h('div', {}, h('b', { class: 'big' }, r.count), h('span', {}, tx('count'))),
        r.kind === 'fruit'
          ? null
          : [tx('known'), tx('uncertain'), tx('unknown'), tx('not_seen')].map((label, i) =>
              h('div', {}, h('b', { class: 'big' }, [r.known, r.uncertain, r.unknown, r.not_seen][i].length), h('span', {}, label)),
            ),
      ),
      r.not_seen.length
        ? notice('warn', `${tx('not_seen')}: ${r.not_seen.map((k: any) => k.name ?? k.individual_id.slice(0, 8)).join(', ')}`)
        : null,
      h('ul', { class: 'tracks' }, r.tracks.map(strip)),
    );
  }

  async function open(id: string) {
    const a = await call('GET', `/api/survey/${id}`);
    if (!a.ok) return mount(board, notice('error', errorText(a)));
    render(a.json);
    if (a.json.status !== 'running') return;
    // Progress as server-sent events (the session cookie authenticates EventSource), then the result.
    const es = new EventSource(a.json.links.events);
    es.addEventListener('progress', (e) => render({ ...a.json, ...JSON.parse((e as MessageEvent).data) }));
    const end = () => {
      es.close();
      void open(id);
      void list();
    };
    es.addEventListener('done', end);
    es.addEventListener('failed', end);
    es.onerror = () => es.close();
  }

  async function list() {
    const a = await call('GET', '/api/surveys');
    if (!a.ok) return;
    const rows = (a.json.surveys as any[]).slice(0, 10);
    const names = await Promise.all(rows.map((x) => speciesName(x.species)));
    mount(
      recent,
      h(
        'ul',
        {},
        rows.map((x, i) =>
          h(
            'li',
            {},
            `${when(x.created_at)} · ${tx(x.kind === 'fruit' ? 'fruit' : 'animal')}${names[i] ? ` (${names[i]})` : ''} · ${statusText(x.status)}${x.count != null ? ` · ${x.count}` : ''} `,
            h('button', { type: 'button', class: 'secondary', onclick: () => void open(x.survey_id) }, tx('open')),
          ),
        ),
      ),
    );
  }

  async function submit(e: Event) {
    e.preventDefault();
    const f = file.files?.[0];
    if (!f) return;
    const form = new FormData();
    form.append('kind', kind.value);
    if (kind.value === 'animal' && species.value.trim()) form.append('species', species.value.trim());
    if (farm.value.trim()) {
      form.append('farm_id', farm.value.trim());
      rememberFarm(farm.value.trim());
    }
    if (tree.value.trim()) form.append('tree_id', tree.value.trim());
    form.append('file', f, f.name);
    const a = await call('POST', '/api/survey', form);
    if (!a.ok) return mount(status, notice('error', errorText(a)));
    mount(status);
    void open(a.json.survey_id);
  }

  void list();
  return h(
    'div',
    {},
    h(
      'section',
      { class: 'card' },
      h('h2', {}, tx('title')),
      h(
        'form',
        { onsubmit: submit, name: 'survey' },
        field(tx('video'), file),
        h('div', { class: 'grid3' }, field(tx('kind'), kind), field(tx('species'), species), field(tx('farm'), farm)),
        field(tx('tree'), tree),
        h('button', { type: 'submit' }, tx('send')),
      ),
      status,
      board,
    ),
    h('section', { class: 'card' }, h('h2', {}, tx('recent')), recent),
  );
}
