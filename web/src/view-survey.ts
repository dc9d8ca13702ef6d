import { call, errorText } from './api.js';
import { blobUrl, field, h, mount, notice } from './dom.js';
import { currentLang } from './i18n.js';
import { speciesName, speciesSelect } from './species.js';
import { when } from './timeline.js';
import { farmInput, fileField, rememberFarm, treeInput } from './pickers.js';

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
  pick_species: ['Hãy chọn loài vật nuôi được quay.', 'Choose the species of the animals filmed.'],
  send: ['Gửi khảo sát', 'Start survey'],
  waiting: ['Video đã gửi và đang chờ máy xử lý nhận.', 'The video is sent and waiting for a worker to take it.'],
  reading: ['Đã đọc {f} khung hình, thấy {t} con.', 'Read {f} frames; {t} animals tracked so far.'],
  reading_of: ['Đã đọc {f} trên {n} khung hình, thấy {t} con.', 'Read {f} of {n} frames; {t} animals tracked so far.'],
  identifying: [
    'Đã đọc hết video; đang nhận dạng: xong {i} trên {t} con.',
    'The whole video is read; identifying: {i} of {t} animals done.',
  ],
  not_seen_list: [
    'Không thấy {n} con đã đăng ký của trang trại này: {names}.',
    '{n} enrolled animals of this farm were not seen: {names}.',
  ],
  not_named_list: [
    'Chưa gọi được tên {n} con đã đăng ký của trang trại này: {names}. {u} con trên video chưa nhận ra được, nên có thể có tới {u} con trong số này đã ở đó.',
    '{n} enrolled animals of this farm were not named: {names}. {u} animals on the video were not recognised, so up to {u} of these may have been there.',
  ],
  maybe_seen_list: ['Có thể đã thấy (vệt chưa chắc chắn): {names}.', 'Perhaps seen, on an uncertain track: {names}.'],
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

/** A running survey's progress: a bar over the frames while it reads, then over the tracks while it identifies. */
function progressOf(s: any): HTMLElement {
  const stage: string = s.stage ?? 'reading';
  if (stage === 'queued') return notice('info', tx('waiting'));
  if (stage === 'identifying') {
    return h(
      'div',
      { class: 'survey-progress' },
      h('progress', { max: Math.max(1, s.tracks), value: s.identified ?? 0 }),
      notice('info', tx('identifying', { i: s.identified ?? 0, t: s.tracks })),
    );
  }
  const total = Number(s.frames_total) || 0;
  return h(
    'div',
    { class: 'survey-progress' },
    total ? h('progress', { max: total, value: Math.min(total, s.frames_read) }) : h('progress', {}),
    notice(
      'info',
      total ? tx('reading_of', { f: s.frames_read, n: total, t: s.tracks }) : tx('reading', { f: s.frames_read, t: s.tracks }),
    ),
  );
}

/**
 * Surveys: send a drone or phone video, watch its progress, then review its tracks as strips of
 * thumbnails with their verdicts; confirming or correcting one stores an identify_verdict label
 * and the counts update (POST /api/survey/{id}/tracks/{n}/review).
 */
export function surveyView(): HTMLElement {
  const file = h('input', { type: 'file', accept: 'video/*', required: true });
  const kind = h('select', { name: 'kind' }, h('option', { value: 'animal' }, tx('animal')), h('option', { value: 'fruit' }, tx('fruit')));
  // Species from the catalogue, in the app's language (issue 39: not free text); cattle by default.
  const speciesSlot = h('div', { class: 'species-slot' });
  let species: HTMLSelectElement | null = null;
  void speciesSelect('animal', false).then((sel) => {
    if ([...sel.options].some((o) => o.value === 'cattle')) sel.value = 'cattle';
    species = sel;
    mount(speciesSlot, field(tx('species'), sel));
  });
  const farm = farmInput();
  const tree = treeInput();
  const treeField = field(tx('tree'), tree);
  const showKind = () => {
    speciesSlot.hidden = kind.value !== 'animal';
    treeField.hidden = kind.value !== 'fruit';
  };
  kind.addEventListener('change', showKind);
  showKind();
  const status = h('div', { 'aria-live': 'polite' });
  const board = h('div', {});
  const recent = h('div', {});

  function render(s: any) {
    if (s.status === 'failed') return mount(board, notice('error', `${tx('failed')}: ${s.error?.message ?? ''}`));
    if (s.status !== 'done') return mount(board, progressOf(s));
    const r = s.result;
    const maybe: any[] = r.maybe_seen ?? [];
    const unnamed: any[] = r.not_named ?? [];
    const names = new Map<string, string>(
      [...r.known, ...maybe, ...unnamed, ...r.not_seen].map((k: any) => [k.individual_id, k.name ?? k.individual_id.slice(0, 8)]),
    );
    const listed = (xs: any[]) => xs.map((k: any) => k.name ?? k.individual_id.slice(0, 8)).join(', ');
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
          : (
              [
                ['known', r.known],
                ['uncertain', r.uncertain],
                ['unknown', r.unknown],
                // Only a survey of a farm has a herd it could have missed, and only when every head
                // was named can it say who was missed.
                ...(r.farm_id && !unnamed.length ? [['not_seen', r.not_seen] as const] : []),
              ] as const
            ).map(([k, xs]) => h('div', { class: k }, h('b', { class: 'big' }, xs.length), h('span', {}, tx(k)))),
      ),
      r.not_seen.length ? notice('warn', tx('not_seen_list', { n: r.not_seen.length, names: listed(r.not_seen) })) : null,
      // A stranger's track may be an enrolled animal the matcher could not name: said, not hidden.
      unnamed.length ? notice('warn', tx('not_named_list', { n: unnamed.length, names: listed(unnamed), u: r.unknown.length })) : null,
      maybe.length ? notice('info', tx('maybe_seen_list', { names: listed(maybe) })) : null,
      h('ul', { class: 'tracks' }, r.tracks.map(strip)),
    );
  }

  // The survey on screen and its progress stream: opening another one, or leaving the tab, ends it.
  let watching = '';
  let stream: EventSource | null = null;
  const pollLater = (id: string) =>
    setTimeout(() => {
      if (watching === id && board.isConnected) void open(id, false);
    }, 2000);

  async function open(id: string, live = true) {
    watching = id;
    stream?.close();
    stream = null;
    const a = await call('GET', `/api/survey/${id}`);
    if (watching !== id) return;
    if (!a.ok) return mount(board, notice('error', errorText(a)));
    render(a.json);
    if (a.json.status !== 'running') return;
    if (!live) return void pollLater(id);
    // Progress as server-sent events (the session cookie authenticates EventSource), then the result.
    const es = new EventSource(a.json.links.events);
    stream = es;
    es.addEventListener('progress', (e) => render({ ...a.json, ...JSON.parse((e as MessageEvent).data) }));
    const end = () => {
      es.close();
      if (stream === es) stream = null;
      void open(id);
      void list();
    };
    es.addEventListener('done', end);
    es.addEventListener('failed', end);
    // A stream refused or cut (the per-account stream limit, a proxy, a lost signal): the page asks
    // every 2 s instead of standing still on the last number it was told.
    es.onerror = () => {
      es.close();
      if (stream !== es) return;
      stream = null;
      pollLater(id);
    };
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
            `${when(x.created_at)} · ${tx(x.kind === 'fruit' ? 'fruit' : 'animal')}${names[i] ? ` (${names[i]})` : ''} · ${statusText(x.status === 'running' && x.stage === 'queued' ? 'queued' : x.status)}${x.count != null ? ` · ${x.count}` : ''} `,
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
    if (kind.value === 'animal') {
      if (!species?.value) return mount(status, notice('error', tx('pick_species')));
      form.append('species', species.value);
    }
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
        fileField(tx('video'), file),
        h('div', { class: 'grid3' }, field(tx('kind'), kind), speciesSlot, field(tx('farm'), farm)),
        treeField,
        h('button', { type: 'submit' }, tx('send')),
      ),
      status,
      board,
    ),
    h('section', { class: 'card' }, h('h2', {}, tx('recent')), recent),
  );
}
