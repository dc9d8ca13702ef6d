import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../shared/src/domain/messages.js';
import { exportToFolder } from '../../shared/src/datasci/export-folder.js';
import { EXPORT_COLUMNS } from '../../shared/src/datasci/export-format.js';
import { writeCandidateModel } from '../../models/candidate.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { signupAdmin } from '../support/admin.js';
import { otherView, photoForm, textureImage } from '../support/images.js';

const post = (app: TestApp, p: string, token: string, form: FormData) => api(app.url, 'POST', p, { token, body: form });
const ADMIN_PW = 'Bark-and-peel-42';

/** Parses our CSV (quoted cells may hold commas and doubled quotes). */
function parseCsv(text: string): Record<(typeof EXPORT_COLUMNS)[number], string>[] {
  const lines: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n') {
      row.push(cell);
      lines.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  const [head, ...rest] = lines;
  return rest.map((r) => Object.fromEntries(head!.map((h, i) => [h, r[i] ?? ''])) as Record<(typeof EXPORT_COLUMNS)[number], string>);
}

describe('labels out: export of an owner’s labelled data (embedded)', () => {
  let app: TestApp;
  let owner: { token: string; id: string };
  let other: { token: string; id: string };
  let admin: string;
  const trees: string[] = [];
  const otherCids: string[] = [];
  let out: string;

  beforeAll(async () => {
    app = await startTestApp();
    admin = (await signupAdmin(app, 'datasci_admin', ADMIN_PW)).token;
    owner = await signup(app.url);
    other = await signup(app.url);
    out = await mkdtemp(path.join(os.tmpdir(), 'markless-export-'));
    const queries: string[] = [];
    for (const seed of [71, 72, 73]) {
      const surface = await textureImage(seed, 384);
      const enrol = await Promise.all([1, 2].map((k) => otherView(surface, seed * 10 + k)));
      trees.push((await post(app, '/api/enroll', owner.token, photoForm(enrol, { species: 'durian' }))).json.tree_id);
      queries.push((await post(app, '/api/identify', owner.token, photoForm([await otherView(surface, seed * 10 + 7)]))).json.query_id);
    }
    queries.push(
      (await post(app, '/api/identify', owner.token, photoForm([await otherView(await textureImage(79, 384), 3)]))).json.query_id,
    );
    for (const q of queries.slice(0, 2))
      await api(app.url, 'POST', '/api/identify_verdict', { token: owner.token, form: { query_id: q, verdict: 'correct' } });
    await api(app.url, 'POST', '/api/identify_verdict', {
      token: owner.token,
      form: { query_id: queries[2]!, verdict: 'other', correct_id: trees[2]! },
    });
    await api(app.url, 'POST', '/api/identify_verdict', { token: owner.token, form: { query_id: queries[3]!, verdict: 'unknown_ok' } });
    // Another account with its own tree and query: none of it may reach the owner's export.
    const foreign = await Promise.all([1, 2].map(async (k) => otherView(await textureImage(90, 384), 900 + k)));
    await post(app, '/api/enroll', other.token, photoForm(foreign));
    await post(app, '/api/identify', other.token, photoForm([await otherView(await textureImage(90, 384), 907)]));
    const cids = await app.container.db.query<{ cid: string }>(
      'select cid from images where owner_id = $1 union select unnest(image_cids) from identify_queries where owner_id = $1',
      [other.id],
    );
    otherCids.push(...cids.rows.map((r) => r.cid));
  }, 240_000);
  afterAll(async () => {
    await app?.stop();
    if (out) await rm(out, { recursive: true, force: true });
  });

  it('streams a zip page with images by CID, a CSV and JSON Lines, and progress headers', async () => {
    const res = await fetch(`${app.url}/api/datasci/export?limit=1000`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('x-export-items-total')).toBe('10'); // 6 gallery photos + 4 queries
    expect(res.headers.get('x-export-next-cursor')).toBeNull();
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    const rows = parseCsv(new TextDecoder().decode(files['manifest.csv']!));
    const jsonl = new TextDecoder()
      .decode(files['manifest.jsonl']!)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(10);
    expect(jsonl).toHaveLength(10);
    expect(Object.keys(rows[0]!).slice(0, 2)).toEqual(['identity', 'path']);
    for (const r of rows) {
      const bytes = files[r.path];
      expect(bytes, r.path).toBeDefined();
      expect(r.path).toContain(r.photo_cid);
    }
    const gallery = rows.filter((r) => r.split === 'gallery');
    expect(gallery).toHaveLength(6);
    expect(new Set(gallery.map((r) => r.identity))).toEqual(new Set(trees));
    expect(gallery.every((r) => r.species === 'durian' && r.kind === 'tree' && r.model.startsWith('markless-texture@'))).toBe(true);
    const q = jsonl.filter((r) => r.split === 'query');
    expect(q.map((r) => r.label).sort()).toEqual(['correct', 'correct', 'other', 'unknown_ok']);
    expect(q.find((r) => r.label === 'other').identity).toBe(trees[2]);
    expect(q.find((r) => r.label === 'unknown_ok').identity).toBe('');
    for (const r of q) {
      expect(r.model_versions.map((m: { name: string }) => m.name)).toContain('markless-texture');
      expect(Array.isArray(r.candidates)).toBe(true);
      expect(['match', 'uncertain', 'no_match']).toContain(r.answer_verdict);
    }
    const correct = q.filter((r) => r.label === 'correct');
    expect(correct.every((r) => r.identity === r.candidates[0].individual_id)).toBe(true);
  });

  it('never shows another account’s photo, and admins choose whose data', async () => {
    const mine = unzipSync(
      new Uint8Array(
        await (await fetch(`${app.url}/api/datasci/export`, { headers: { authorization: `Bearer ${owner.token}` } })).arrayBuffer(),
      ),
    );
    const text = new TextDecoder().decode(mine['manifest.jsonl']!);
    expect(otherCids.length).toBe(3);
    for (const cid of otherCids) {
      expect(text).not.toContain(cid);
      expect(Object.keys(mine).some((n) => n.includes(cid))).toBe(false);
    }
    expect(text).not.toContain(other.id);
    const denied = await api(app.url, 'GET', `/api/admin/datasci/export?owner_id=${other.id}`, { token: owner.token });
    expect(denied.status).toBe(403);
    const theirs = unzipSync(
      new Uint8Array(
        await (
          await fetch(`${app.url}/api/admin/datasci/export?owner_id=${other.id}`, { headers: { authorization: `Bearer ${admin}` } })
        ).arrayBuffer(),
      ),
    );
    const theirRows = parseCsv(new TextDecoder().decode(theirs['manifest.csv']!));
    expect(new Set(theirRows.map((r) => r.photo_cid))).toEqual(new Set(otherCids));
    const all = await fetch(`${app.url}/api/admin/datasci/export`, { headers: { authorization: `Bearer ${admin}` } });
    expect(all.headers.get('x-export-items-total')).toBe('13');
    await all.arrayBuffer();
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const id = '0b7e1a9e-5b3c-4d2a-9f10-2d3c4b5a6978';
    // A bad cursor is the client's mistake, a 400 with a whole sentence, never a 500 (issue 21).
    for (const cursor of [
      'nonsense',
      b64({ part: 'gallery', at: '1' }),
      b64({ part: 'gallery', at: '1', id }),
      b64({ part: 'query', at: '2026-02-30 00:00:00+00', id }),
    ]) {
      for (const p of ['/api/datasci/export', '/api/admin/datasci/export']) {
        const bad = await api(app.url, 'GET', `${p}?cursor=${cursor}`, {
          token: p.includes('admin') ? admin : owner.token,
          headers: { 'accept-language': 'en' },
        });
        expect(bad.status, cursor).toBe(400);
        expect(bad.json, cursor).toMatchObject({ ok: false, code: 'cursor_invalid', detail: 'cursor', error: messages.cursor_invalid.en });
      }
    }
  });

  it('resumes by cursor into a folder with no row missing or doubled', async () => {
    const progress: [number, number][] = [];
    const first = await exportToFolder({
      url: app.url,
      token: owner.token,
      out,
      limit: 3,
      maxPages: 2,
      onProgress: (d, t) => progress.push([d, t]),
    });
    expect(first.complete).toBe(false);
    expect(existsSync(path.join(out, '.cursor'))).toBe(true);
    // A stopped run may leave half a page behind: resumption must cut it off.
    const { appendFileSync } = await import('node:fs');
    appendFileSync(path.join(out, 'manifest.csv'), 'half,a,row\n');
    const rest = await exportToFolder({ url: app.url, token: owner.token, out, limit: 3, onProgress: (d, t) => progress.push([d, t]) });
    expect(rest.complete).toBe(true);
    expect(progress.at(-1)).toEqual([10, 10]);
    expect(progress.map((p) => p[0])).toEqual([...progress.map((p) => p[0])].sort((a, b) => a - b));
    const rows = parseCsv(readFileSync(path.join(out, 'manifest.csv'), 'utf8'));
    expect(rows).toHaveLength(10);
    expect(new Set(rows.map((r) => `${r.split}:${r.image_id || r.query_id}`)).size).toBe(10);
    expect(readFileSync(path.join(out, 'manifest.jsonl'), 'utf8').trim().split('\n')).toHaveLength(10);
    // Every photo on disk is the stored blob, byte for byte.
    const images = readdirSync(path.join(out, 'images'));
    expect(images).toHaveLength(10);
    for (const r of rows) {
      const stored = await app.container.blobs.get(r.photo_cid);
      const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
      expect(sha(readFileSync(path.join(out, r.path)))).toBe(sha(stored!));
    }
    expect(existsSync(path.join(out, '.cursor'))).toBe(false);
  });

  it('round-trips into npm run eval: a candidate model side by side with the one in service', async () => {
    const modelDir = await mkdtemp(path.join(os.tmpdir(), 'markless-candidate-'));
    const plots = path.join(modelDir, 'plots');
    try {
      writeCandidateModel(modelDir);
      const run = spawnSync('npx', ['tsx', 'benchmarks/eval.ts', '--model', modelDir, '--labels', out, '--plots', plots], {
        encoding: 'utf8',
        timeout: 180_000,
      });
      expect(run.status, run.stderr).toBe(0);
      const r = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
      expect(r.n_gallery).toBe(6);
      expect(r.n_queries_enrolled).toBe(3);
      expect(r.n_queries_open_set).toBe(1);
      expect(r.serving.model.version.split('+')[0]).toBe('1.0.0');
      expect(r.candidate.model.version.split('+')[0]).toBe('1.1.0-candidate');
      for (const side of [r.serving, r.candidate]) {
        for (const k of ['top1', 'top5', 'auc', 'accept_at_far1']) expect(side[k]).toBeGreaterThanOrEqual(0);
        expect(side.top5).toBeGreaterThanOrEqual(side.top1);
      }
      // The model in service, re-run on the exported photos, ranks first what the service answered.
      // (An answer with no candidates, e.g. no_match, shows no top-1 to compare.)
      const answered = r.serving.per_query.filter((q: { answered_top1: string | null }) => q.answered_top1);
      expect(answered.length).toBeGreaterThanOrEqual(3);
      for (const q of answered) expect(q.top1).toBe(q.answered_top1);
      expect(r.serving.top1).toBe(1);
      for (const f of [...r.plots.serving, ...r.plots.candidate]) expect(readFileSync(f, 'utf8')).toContain('<svg');
    } finally {
      await rm(modelDir, { recursive: true, force: true });
    }
  }, 200_000);
});

describe('labels out from PostgreSQL and S3 (distributed)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ mode: 'distributed' });
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('exports the caller’s photos from the S3 store byte for byte, and nobody else’s', async () => {
    const owner = await signup(app.url);
    const other = await signup(app.url);
    const surface = await textureImage(95, 384);
    const enrol = await Promise.all([1, 2].map((k) => otherView(surface, 950 + k)));
    const tree = (await post(app, '/api/enroll', owner.token, photoForm(enrol))).json.tree_id;
    const q = (await post(app, '/api/identify', owner.token, photoForm([await otherView(surface, 957)]))).json.query_id;
    await api(app.url, 'POST', '/api/identify_verdict', { token: owner.token, form: { query_id: q, verdict: 'correct' } });
    await post(
      app,
      '/api/enroll',
      other.token,
      photoForm(await Promise.all([1, 2].map(async (k) => otherView(await textureImage(96, 384), 960 + k)))),
    );
    const res = await fetch(`${app.url}/api/datasci/export`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(res.status).toBe(200);
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    const rows = parseCsv(new TextDecoder().decode(files['manifest.csv']!));
    expect(rows.map((r) => r.split).sort()).toEqual(['gallery', 'gallery', 'query']);
    expect(rows.every((r) => r.identity === tree && r.owner_id === owner.id)).toBe(true);
    const theirs = await app.container.db.query<{ cid: string }>('select cid from images where owner_id = $1', [other.id]);
    expect(theirs.rows).toHaveLength(2);
    for (const t of theirs.rows) expect(Object.keys(files).some((n) => n.includes(t.cid))).toBe(false);
    for (const r of rows) expect(Buffer.from(files[r.path]!).equals((await app.container.blobs.get(r.photo_cid))!)).toBe(true);
  }, 120_000);
});
