/**
 * Input that used to get in unchecked, and errors a person can read. One app, embedded: what is
 * checked here is validation and wording in the routes and services, which both modes share (the
 * adapters' equivalence is the conformance suites'; the attack sweep sends hostile input to both
 * modes). verify_add and identify assert verdicts, so the app keeps the real engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { messages } from '../../shared/src/domain/messages.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { blankImage, otherView, photoForm, textureImage } from '../support/images.js';
import { uniqueName } from '../support/postgres.js';
import { enrollTree } from './timeline.helpers.js';

type User = { token: string; id: string; username: string };

describe('hardening: input and errors (embedded)', () => {
  let app: TestApp;
  let owner: User;
  let tree: { tree_id: string; files: Buffer[] };
  const upload = async (p: string, form: FormData, token = owner.token, headers: Record<string, string> = {}) => {
    const r = await fetch(app.url + p, { method: 'POST', headers: { authorization: `Bearer ${token}`, ...headers }, body: form });
    return { status: r.status, json: (await r.json()) as any, headers: r.headers };
  };

  beforeAll(async () => {
    app = await startTestApp();
    owner = await signup(app.url, 'inp');
    tree = await enrollTree(app.url, owner.token, 950, { farm_id: 'north' });
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('verify_add identifies the photo against the tree first and refuses one that does not match, with the verdict', async () => {
    const count = async () =>
      (await app.container.db.query<{ n: number }>('select count(*)::int as n from images where individual_id = $1', [tree.tree_id]))
        .rows[0]!.n;
    const before = await count();
    const stranger = await textureImage(9_999, 256);
    const no = await upload('/api/verify_add', photoForm([stranger], { tree_id: tree.tree_id }));
    expect(no.status).toBe(422);
    expect(no.json).toMatchObject({
      ok: false,
      code: 'verify_add_mismatch',
      detail: 'files',
      verdict: { verdict: expect.stringMatching(/^(no_match|uncertain)$/) },
    });
    expect(await count()).toBe(before);
    const yes = await upload('/api/verify_add', photoForm([await otherView(tree.files[0]!, 7)], { tree_id: tree.tree_id }));
    expect(yes.status).toBe(200);
    expect(await count()).toBe(before + 1);
  });

  it('enrolment refuses a species outside the catalogue (naming close ones), duplicate photos, and too few animal photos', async () => {
    const unicorn = await upload(
      '/api/enroll',
      photoForm(await Promise.all([textureImage(960, 256)]), { species: 'unicorn_tree', farm_id: 'north' }),
    );
    expect(unicorn.status).toBe(422);
    expect(unicorn.json).toMatchObject({ code: 'species_unknown', detail: 'species' });
    expect(unicorn.json.error).toMatch(/unicorn_tree/);
    const close = await upload('/api/enroll', photoForm([await textureImage(961, 256)], { species: 'durain' }), owner.token, {
      'accept-language': 'en',
    });
    expect(close.json.error).toMatch(/Closest names: .*durian/);
    const scan = await upload('/api/scan', photoForm([await textureImage(962, 256)]));
    expect(scan.json.top_k).not.toContain('unicorn_tree');
    expect(scan.json.species_basis).toBe('prior');
    const one = await textureImage(963, 320);
    const same = await upload('/api/animal/enroll', photoForm([one, one, one], { species: 'cattle', farm_id: 'north' }));
    expect(same.status).toBe(422);
    expect(same.json).toMatchObject({ code: 'photos_refused', overridable: false });
    expect(same.json.refused.map((r: { index: number; reasons: string[] }) => [r.index, r.reasons])).toEqual([
      [1, ['identical']],
      [2, ['identical']],
    ]);
    const reencoded = await sharp(one).jpeg({ quality: 70 }).toBuffer();
    const nearForm = () => photoForm([one, reencoded, textureB], { species: 'cattle', farm_id: 'north' });
    const textureB = await textureImage(964, 320);
    const near = await upload('/api/animal/enroll', nearForm());
    expect(near.json).toMatchObject({
      code: 'photos_refused',
      overridable: true,
      refused: [{ index: 1, reasons: ['near_identical'], warning: true }],
    });
    // The owner keeps a warned photo: accept_warnings.
    const kept = nearForm();
    kept.append('accept_warnings', 'true');
    const ok = await upload('/api/animal/enroll', kept);
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    expect(ok.json.images).toHaveLength(3);
    const few = await upload('/api/animal/enroll', photoForm([one, await textureImage(965, 320)], { species: 'cattle', farm_id: 'north' }));
    expect(few.status).toBe(422);
  });

  it('a tree enrolled without lat/lon gets the explicit no-location geohash, which resolve explains', async () => {
    const r = await fetch(`${app.url}/api/enroll`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}` },
      body: photoForm([await textureImage(970, 256)], { species: 'durian', name: '<script>alert(1)</script>Cây <b>số</b> 9' }),
    });
    const j = (await r.json()) as any;
    expect(r.status).toBe(200);
    expect(j.code).toMatch(/^MKL-0000000-/);
    await api(app.url, 'POST', `/api/tree/${j.tree_id}/publish`, { token: owner.token, form: { level: 'public' } });
    const res = await api(app.url, 'GET', `/api/resolve/${j.code}`);
    expect(res.json).toMatchObject({ has_location: false, record: { geohash: '0000000' } });
    expect(res.json.name).not.toMatch(/[<>]/);
    expect(res.json.name).toContain('Cây số 9');
    // The page embeds the same resolution and its script says so in words instead of drawing a cell.
    const page = await api(app.url, 'GET', `/t/${j.code}`);
    expect(page.text).toContain('"has_location":false');
    expect((await api(app.url, 'GET', '/app/i18n.js')).text).toMatch(/No location was given at enrolment/);
  });

  it('identify narrows by a confirmed species', async () => {
    const photo = await otherView(tree.files[1]!, 3);
    const plain = await upload('/api/identify', photoForm([photo]));
    expect(plain.json.verdict).toBe('match');
    const narrowed = await upload('/api/identify', photoForm([photo], { species: 'mango' }));
    expect(narrowed.json.verdict).toBe('no_match');
    const same = await upload('/api/identify', photoForm([photo], { species: 'Durian' }));
    expect(same.json.match.individual_id).toBe(tree.tree_id);
  });

  it('JSON routes refuse text/plain; cookie writes check Origin; forms accept multipart/form-data', async () => {
    const plain = await api(app.url, 'POST', '/api/login', {
      body: JSON.stringify({ username: 'x', password: 'y' }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(plain.status).toBe(415);
    expect(plain.json).toMatchObject({ code: 'content_type_unsupported', detail: 'content-type' });
    const login = await api(app.url, 'POST', '/api/login', { json: { username: owner.username, password: 'Bark-and-peel-42' } });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const evil = await api(app.url, 'POST', '/api/feedback', {
      form: { note: 'csrf' },
      headers: { cookie, origin: 'https://evil.example' },
    });
    expect(evil.status).toBe(403);
    expect(evil.json.code).toBe('origin_forbidden');
    // A browser sends Origin with every write: a cookie write without one did not come from our pages.
    const bare = await api(app.url, 'POST', '/api/feedback', { form: { note: 'no origin' }, headers: { cookie, 'accept-language': 'en' } });
    expect(bare.status).toBe(403);
    expect(bare.json.code).toBe('origin_forbidden');
    expect(bare.json.error).toMatch(/^A write signed in by cookie must come from the service's own pages;.*\.$/);
    const own = await api(app.url, 'POST', '/api/feedback', { form: { note: 'same-origin' }, headers: { cookie, origin: app.url } });
    expect(own.status).toBe(200);
    // A browser's FormData is multipart/form-data: form routes take it too.
    const fd = new FormData();
    fd.append('note', 'sent as FormData');
    const r = await fetch(`${app.url}/api/feedback`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}` }, body: fd });
    expect(r.status).toBe(200);
    const rows = await app.container.db.query<{ n: number }>(`select count(*)::int as n from feedback where note = 'sent as FormData'`);
    expect(rows.rows[0]!.n).toBe(1);
    const scan = await upload('/api/scan', photoForm([await textureImage(980, 256)]));
    const confirm = new FormData();
    confirm.append('scan_token', scan.json.scan_token);
    confirm.append('species', scan.json.top_k[0]);
    const c = await fetch(`${app.url}/api/scan/confirm`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}` },
      body: confirm,
    });
    expect(c.status).toBe(200);
  });

  it('usernames need a letter or digit at each end and no run of separators', async () => {
    for (const u of ['...', '___', '.carol', 'carol.c.', 'ca..rol', 'ca._rol']) {
      const r = await api(app.url, 'POST', '/api/signup', { json: { username: u, password: 'Bark-and-peel-42' } });
      expect(r.status, u).toBe(400);
      expect(r.json.code, u).toBe('username_invalid');
    }
    const good = uniqueName('carol.c');
    expect((await api(app.url, 'POST', '/api/signup', { json: { username: good, password: 'Bark-and-peel-42' } })).status).toBe(200);
    const taken = await api(app.url, 'POST', '/api/signup', { json: { username: good, password: 'Bark-and-peel-42' } });
    expect(taken.status).toBe(400);
    expect(taken.json.code).toBe('username_taken');
  });

  it('errors come from the catalogue in one language, honour q-values, name the field and carry the request id', async () => {
    const vi = await api(app.url, 'POST', '/api/login', { json: { username: 'someone' }, headers: { 'x-request-id': 'quote-me-123' } });
    expect(vi.status).toBe(422);
    expect(vi.json).toEqual({
      ok: false,
      code: 'validation_failed',
      detail: 'password',
      reason: 'required',
      error: 'Trường "password" bị thiếu.',
      request_id: 'quote-me-123',
    });
    expect(vi.headers.get('x-request-id')).toBe('quote-me-123');
    const fr = await api(app.url, 'POST', '/api/login', {
      json: { username: 'someone', password: 1 },
      headers: { 'accept-language': 'fr, en;q=0.5' },
    });
    expect(fr.json.error).toBe('Field "password" has the wrong type.');
    expect((await api(app.url, 'GET', '/api/nowhere', { headers: { 'accept-language': 'fr;q=0.9, vi;q=0.8, en;q=0.1' } })).json.error).toBe(
      messages.route_not_found.vi,
    );
    // Quality reasons: words in the sentence, codes in `reasons`.
    const blank = await upload('/api/identify', photoForm([await blankImage(480)]));
    expect(blank.status).toBe(422);
    expect(blank.json.code).toBe('image_unusable');
    expect(blank.json.reasons.length).toBeGreaterThan(0);
    for (const code of blank.json.reasons) expect(blank.json.error).not.toContain(code);
    const wrong = await upload('/api/identify', photoForm([Buffer.from('GIF89a not really')]));
    expect(wrong.json.error).not.toMatch(/image|\//);
    // Too many files names the field.
    const many = await upload(
      '/api/animal/identify',
      photoForm(await Promise.all(Array.from({ length: 11 }, (_, i) => textureImage(990 + i, 64)))),
    );
    expect(many.status).toBe(413);
    expect(many.json).toMatchObject({ code: 'too_many_files_in', detail: 'files' });
    expect(many.json.error).toContain('"files"');
    expect(many.json.request_id).toEqual(expect.any(String));
  });
});
