import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../shared/src/domain/messages.js';
import { AdminActivityOut, AdminFeedbackOut, EventsOut } from '../../api/src/routes/admin.route.js';
import { FeedbackOut, NOTE_MAX_CHARS } from '../../api/src/routes/feedback.route.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { signupAdmin } from '../support/admin.js';

const ADMIN_PW = 'Bark-and-peel-42';

/** An app with one admin account; returns the admin's token and a plain user's. */
async function startWithAdmin(): Promise<{ app: TestApp; admin: string; user: { token: string; id: string; username: string } }> {
  const app = await startTestApp({ engine: 'deterministic' });
  const s = await signupAdmin(app, 'chief_admin', ADMIN_PW);
  expect((await api(app.url, 'GET', '/api/me', { token: s.token })).json.account.is_admin).toBe(true);
  return { app, admin: s.token, user: await signup(app.url) };
}

const count = async (app: TestApp, sql: string, params: unknown[] = []) =>
  (await app.container.db.query<{ n: number }>(sql, params)).rows[0]!.n;

describe('feedback and admin reports (embedded)', () => {
  let app: TestApp;
  let admin: string;
  let user: { token: string; id: string };
  const send = (note: string | undefined, opts: { token?: string; headers?: Record<string, string> } = {}) =>
    api(app.url, 'POST', '/api/feedback', { ...opts, form: note === undefined ? { other: 'x' } : { note } });

  beforeAll(async () => {
    ({ app, admin, user } = await startWithAdmin());
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('lists feedback and admin in /api/health features', async () => {
    const h = await api(app.url, 'GET', '/api/health');
    expect(h.json.features).toEqual(expect.arrayContaining(['feedback', 'admin']));
  });

  it('stores an anonymous note stripped, as one row and one ownerless activity event', async () => {
    const rowsBefore = await count(app, 'select count(*)::int as n from feedback');
    const eventsBefore = await count(app, `select count(*)::int as n from activity_events where action = 'feedback.sent'`);
    const r = await send('  \n the leaf photos upload slowly \t ');
    expect(r.status).toBe(200);
    expect(FeedbackOut.parse(r.json).ok).toBe(true);
    const { rows } = await app.container.db.query<{ note: string; owner_id: string | null }>(
      'select note, owner_id from feedback where id = $1',
      [r.json.id],
    );
    expect(rows).toEqual([{ note: 'the leaf photos upload slowly', owner_id: null }]);
    expect(await count(app, 'select count(*)::int as n from feedback')).toBe(rowsBefore + 1);
    expect(await count(app, `select count(*)::int as n from activity_events where action = 'feedback.sent'`)).toBe(eventsBefore + 1);
  });

  it('records the owner when a token is sent, and logs the event under that owner', async () => {
    const r = await send('signed-in note', { token: user.token });
    expect(r.status).toBe(200);
    const { rows } = await app.container.db.query<{ owner_id: string }>('select owner_id from feedback where id = $1', [r.json.id]);
    expect(rows[0]!.owner_id).toBe(user.id);
    const ev = await app.container.db.query<{ owner_id: string; detail: Record<string, unknown> }>(
      `select owner_id, detail from activity_events where action = 'feedback.sent' order by id desc limit 1`,
    );
    expect(ev.rows[0]!.owner_id).toBe(user.id);
    expect(JSON.stringify(ev.rows[0]!.detail)).not.toContain('signed-in note'); // the text stays out of the log
  });

  it('also accepts the note as JSON', async () => {
    const r = await api(app.url, 'POST', '/api/feedback', { json: { note: 'json note' } });
    expect(r.status).toBe(200);
  });

  it.each([
    ['empty', ''],
    ['whitespace-only', ' \n\t\u00a0 '],
  ])('422s an %s note with feedback_empty naming note', async (_, note) => {
    const before = await count(app, 'select count(*)::int as n from feedback');
    const vi = await send(note);
    expect(vi.status).toBe(422);
    expect(vi.json).toEqual({
      ok: false,
      code: 'feedback_empty',
      detail: 'note',
      error: messages.feedback_empty.vi,
      request_id: 'test-request-id',
    });
    const en = await send(note, { headers: { 'Accept-Language': 'en' } });
    expect(en.json.error).toBe(messages.feedback_empty.en);
    expect(await count(app, 'select count(*)::int as n from feedback')).toBe(before);
  });

  it('422s a missing note and an over-long one, naming note', async () => {
    const missing = await send(undefined);
    expect(missing.status).toBe(422);
    expect(missing.json.detail).toBe('note');
    const long = await send('x'.repeat(NOTE_MAX_CHARS + 1));
    expect(long.status).toBe(422);
    expect(long.json.detail).toBe('note');
    expect((await send('x'.repeat(NOTE_MAX_CHARS))).status).toBe(200);
  });

  it.each(['/api/admin/feedback', '/api/admin/activity', '/api/events'])('%s: 401 without a token, 403 for a non-admin', async (p) => {
    const anon = await api(app.url, 'GET', p);
    expect(anon.status).toBe(401);
    expect(anon.json.code).toBe('unauthorized');
    const plain = await api(app.url, 'GET', p, { token: user.token });
    expect(plain.status).toBe(403);
    expect(plain.json).toMatchObject({ code: 'admin_only', error: messages.admin_only.vi });
    expect((await api(app.url, 'GET', p, { token: admin })).status).toBe(200);
  });

  it('lists feedback newest first, with has_owner but never the owner id', async () => {
    const first = await send('order one', { token: user.token });
    const second = await send('order two');
    const third = await send('order three', { token: user.token });
    const r = await api(app.url, 'GET', '/api/admin/feedback?limit=3', { token: admin });
    expect(r.status).toBe(200);
    const body = AdminFeedbackOut.parse(r.json);
    expect(body.items.map((i) => i.id)).toEqual([third.json.id, second.json.id, first.json.id]);
    expect(body.items.map((i) => i.has_owner)).toEqual([true, false, true]);
    expect(body.total).toBe(await count(app, 'select count(*)::int as n from feedback'));
    expect(r.text).not.toContain(user.id);
    expect(r.text).not.toContain('owner_id');
    const next = await api(app.url, 'GET', '/api/admin/feedback?limit=1&offset=1', { token: admin });
    expect(next.json.items.map((i: { id: string }) => i.id)).toEqual([second.json.id]);
  });

  it('pages /api/events newest first, with owners and details', async () => {
    const all = await api(app.url, 'GET', '/api/events?limit=500', { token: admin });
    expect(all.status).toBe(200);
    const body = EventsOut.parse(all.json);
    expect(body.total).toBe(await count(app, 'select count(*)::int as n from activity_events'));
    expect(body.items).toHaveLength(body.total);
    const ids = body.items.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(body.items.some((e) => e.owner_id === user.id && e.action === 'session.issued')).toBe(true);
    const p1 = (await api(app.url, 'GET', '/api/events?limit=2', { token: admin })).json;
    const p2 = (await api(app.url, 'GET', '/api/events?limit=2&offset=2', { token: admin })).json;
    expect([...p1.items, ...p2.items].map((e: { id: number }) => e.id)).toEqual(ids.slice(0, 4));
    expect(p2).toMatchObject({ limit: 2, offset: 2 });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=501', 'limit'],
    ['limit=abc', 'limit'],
    ['offset=-1', 'offset'],
  ])('422s %s naming the query field', async (q, field) => {
    const r = await api(app.url, 'GET', `/api/events?${q}`, { token: admin });
    expect(r.status).toBe(422);
    expect(r.json.detail).toBe(field);
  });
});

describe('admin activity summary (embedded, fresh log)', () => {
  let app: TestApp;
  let admin: string;
  let user: { token: string; id: string; username: string };
  const activity = (q = '', lang?: string) =>
    api(app.url, 'GET', `/api/admin/activity${q}`, { token: admin, headers: lang ? { 'Accept-Language': lang } : {} });

  beforeAll(async () => {
    ({ app, admin, user } = await startWithAdmin());
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('has no note while every event has an owner', async () => {
    const r = await activity();
    expect(r.status).toBe(200);
    expect(AdminActivityOut.parse(r.json)).toMatchObject({ skipped: 0 });
    expect(r.json.note).toBeUndefined();
  });

  it('counts actions per user with first and last seen, and skips ownerless events with a note', async () => {
    await api(app.url, 'POST', '/api/login', { json: { username: user.username, password: ADMIN_PW } });
    await api(app.url, 'POST', '/api/feedback', { token: user.token, form: { note: 'owned' } });
    await api(app.url, 'POST', '/api/feedback', { form: { note: 'anonymous one' } });
    await api(app.url, 'POST', '/api/feedback', { form: { note: 'anonymous two' } });
    const r = await activity();
    const body = AdminActivityOut.parse(r.json);
    const mine = body.users.find((u) => u.account_id === user.id)!;
    expect(mine).toMatchObject({ username: user.username, events: 3, actions: { 'session.issued': 2, 'feedback.sent': 1 } });
    expect(Date.parse(mine.first_seen)).toBeLessThan(Date.parse(mine.last_seen));
    expect(body.users.every((u) => u.account_id)).toBe(true);
    expect(body.users[0]!.account_id).toBe(user.id); // most recently active first
    expect(body.skipped).toBe(2);
    expect(body.total_users).toBe(2); // the admin and the user
    expect(body.note).toBe(messages.activity_unowned_skipped.vi.replace('{count}', '2'));
    expect((await activity('', 'en')).json.note).toBe('2 events with no owner were skipped.');
  });

  it('pages users without splitting one user across pages', async () => {
    const page = (await activity('?limit=1&offset=1')).json;
    expect(page.users).toHaveLength(1);
    expect(page.users[0].username).toBe('chief_admin');
    // The operator's grant is in the admin's own activity too (issue 21: grants are recorded).
    expect(page.users[0].actions).toEqual({ 'session.issued': 1, 'admin.granted': 1 });
  });
});

describe('feedback and admin reports (distributed)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic', mode: 'distributed' });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('stores feedback and answers all three reports on PostgreSQL', async () => {
    const admin = (await signupAdmin(app, 'chief_admin', ADMIN_PW)).token;
    const user = await signup(app.url);
    expect((await api(app.url, 'POST', '/api/feedback', { token: user.token, form: { note: ' owned ' } })).status).toBe(200);
    expect((await api(app.url, 'POST', '/api/feedback', { form: { note: 'anon' } })).status).toBe(200);
    expect((await api(app.url, 'POST', '/api/feedback', { form: { note: '  ' } })).json.code).toBe('feedback_empty');
    const fb = AdminFeedbackOut.parse((await api(app.url, 'GET', '/api/admin/feedback', { token: admin })).json);
    expect(fb.items.map((i) => [i.note, i.has_owner])).toEqual([
      ['anon', false],
      ['owned', true],
    ]);
    const act = AdminActivityOut.parse((await api(app.url, 'GET', '/api/admin/activity', { token: admin })).json);
    expect(act.skipped).toBe(1);
    expect(act.users.find((u) => u.account_id === user.id)?.actions).toEqual({ 'session.issued': 1, 'feedback.sent': 1 });
    const ev = EventsOut.parse((await api(app.url, 'GET', '/api/events', { token: admin })).json);
    expect(ev.total).toBe(5); // the admin's session and grant, the user's session and note, the anonymous note
    expect(ev.items[0]).toMatchObject({ owner_id: null, action: 'feedback.sent', detail: { chars: 4 } });
  });
});
