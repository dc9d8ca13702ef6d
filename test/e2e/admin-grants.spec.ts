import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { uniqueName } from '../support/postgres.js';
import { freePort, spawnEntry, until, type Child } from '../support/process.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Run `npm run admin`'s entry point as the operator would, against the app's real database. */
async function adminCli(app: TestApp, ...args: string[]): Promise<{ code: number | string; out: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'api/src/cli/admin.ts'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...app.env, ADMIN_ACTOR: 'ops-on-call' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | string>((resolve) => proc.on('exit', (c, s) => resolve(c ?? s ?? -1)));
  return { code, out };
}

describe('administrators are made by an operator, never by signing up (distributed, real PostgreSQL)', () => {
  let app: TestApp;
  const reserved = uniqueName('boss_');
  const queues = (token: string) => api(app.url, 'GET', '/api/admin/queues', { token });

  beforeAll(async () => {
    // No story here runs a job: the API alone, without a worker (and so without a recognition engine).
    app = await startTestApp({ mode: 'distributed', worker: false, env: { ADMIN_USERS: reserved } });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('signing up under a name listed in ADMIN_USERS grants nothing', async () => {
    const s = await api(app.url, 'POST', '/api/signup', { json: { username: reserved, password: 'Bark-and-peel-42' } });
    expect(s.status).toBe(200);
    expect(s.json.account.is_admin).toBe(false);
    expect((await api(app.url, 'GET', '/api/me', { token: s.json.token })).json.account.is_admin).toBe(false);
    const q = await queues(s.json.token);
    expect(q.status).toBe(403);
    expect(q.json.code).toBe('admin_only');
    const rows = await app.container.db.query('select 1 from admin_grants');
    expect(rows.rows).toHaveLength(0);
  });

  it('grant, list and revoke through the CLI act on existing tokens at once and are recorded', async () => {
    const user = await signup(app.url, 'ops');
    expect((await queues(user.token)).status).toBe(403);

    const g = await adminCli(app, 'grant', user.username);
    expect(g.code, g.out).toBe(0);
    expect(JSON.parse(g.out.trim().split('\n').at(-1)!)).toMatchObject({ username: user.username, result: 'granted', by: 'ops-on-call' });
    // The token issued before the grant is now an administrator's.
    expect((await queues(user.token)).status).toBe(200);
    expect((await api(app.url, 'GET', '/api/me', { token: user.token })).json.account.is_admin).toBe(true);
    const row = (
      await app.container.db.query<{ granted_by: string; granted_at: Date; revoked_at: Date | null }>(
        'select granted_by, granted_at, revoked_at from admin_grants where account_id = $1',
        [user.id],
      )
    ).rows[0]!;
    expect(row.granted_by).toBe('ops-on-call');
    expect(Date.now() - new Date(row.granted_at).getTime()).toBeLessThan(120_000);
    expect(row.revoked_at).toBeNull();

    expect((await adminCli(app, 'grant', user.username)).out).toContain('"already_admin"');
    const list = await adminCli(app, 'list');
    expect(list.code).toBe(0);
    expect(JSON.parse(list.out.trim().split('\n').at(-1)!)).toEqual([
      expect.objectContaining({ username: user.username, account_id: user.id, granted_by: 'ops-on-call' }),
    ]);

    const r = await adminCli(app, 'revoke', user.username);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('"revoked"');
    expect((await queues(user.token)).status).toBe(403);
    const after = (
      await app.container.db.query<{ revoked_by: string; revoked_at: Date | null }>(
        'select revoked_by, revoked_at from admin_grants where account_id = $1',
        [user.id],
      )
    ).rows[0]!;
    expect(after.revoked_by).toBe('ops-on-call');
    expect(after.revoked_at).not.toBeNull();
    const audit = await app.container.db.query<{ action: string }>(
      `select action from activity_events where owner_id = $1 and action like 'admin.%' order by id`,
      [user.id],
    );
    expect(audit.rows.map((x) => x.action)).toEqual(['admin.granted', 'admin.revoked']);
    expect(JSON.parse((await adminCli(app, 'list')).out.trim().split('\n').at(-1)!)).toEqual([]);
  });

  it('refuses an account that does not exist, and bad usage', async () => {
    const ghost = await adminCli(app, 'grant', uniqueName('ghost_'));
    expect(ghost.code).toBe(1);
    expect(ghost.out).toMatch(/No account is named/);
    expect(
      (
        await app.container.db.query('select 1 from admin_grants g join accounts a on a.id = g.account_id where a.username like $1', [
          'ghost_%',
        ])
      ).rows,
    ).toHaveLength(0);
    expect((await adminCli(app, 'promote')).code).toBe(2);
  });

  /** Start the API entry point as a deploy would, with `adminUsers` as ADMIN_USERS; returns its log. */
  async function restartWith(adminUsers: string, port: number, check: (base: string, log: () => string) => Promise<void>): Promise<void> {
    const child: Child = spawnEntry('api/src/main.ts', { ...app.env, PORT: String(port), LOG_LEVEL: 'info', ADMIN_USERS: adminUsers });
    try {
      await until(async () => (await fetch(`http://127.0.0.1:${port}/api/health`)).ok, 90_000, 200);
      await check(`http://127.0.0.1:${port}`, () => child.output());
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
    }
  }

  it('a name listed in ADMIN_USERS and signed up by a stranger is not made administrator at the next restart', async () => {
    const listed = uniqueName('boss_sec_');
    const port = await freePort();
    // First deploy: the name has no account yet.
    await restartWith(listed, port, async (base) => {
      const s = await api(base, 'POST', '/api/signup', { json: { username: listed, password: 'Bark-and-peel-42' } });
      expect(s.status).toBe(200);
      expect(s.json.account.is_admin).toBe(false);
    });
    // Next deploy with the same setting: the stranger's account exists now and still gains nothing.
    await restartWith(listed, port, async (base, log) => {
      const l = await api(base, 'POST', '/api/login', { json: { username: listed, password: 'Bark-and-peel-42' } });
      expect(l.status).toBe(200);
      expect(l.json.account.is_admin).toBe(false);
      expect((await api(base, 'GET', '/api/admin/feedback', { token: l.json.token })).status).toBe(403);
      expect(log()).toMatch(/ADMIN_USERS entry pins no account id; nothing granted/);
    });
    const rows = await app.container.db.query('select 1 from admin_grants g join accounts a on a.id = g.account_id where a.username = $1', [
      listed,
    ]);
    expect(rows.rows).toHaveLength(0);
  });

  it('ADMIN_USERS grants only an account it pins by id, and says so in the log', async () => {
    const existing = await signup(app.url, 'legacy');
    const other = await signup(app.url, 'other');
    const ghostId = '00000000-0000-4000-8000-000000000000';
    const port = await freePort();
    // A pinned id, a username that does not go with its id, and an id with no account.
    await restartWith(`${existing.username}:${existing.id},${existing.username}:${other.id},${ghostId}`, port, async (_base, log) => {
      expect(log()).toMatch(new RegExp(`"username":"${existing.username}"[^\\n]*pinned account marked administrator`));
      expect(log()).toMatch(new RegExp(`"entry":"${existing.username}:${other.id}"[^\\n]*does not exist`));
      expect(log()).toMatch(new RegExp(`"entry":"${ghostId}"[^\\n]*does not exist`));
      // The pinned account's earlier token is an administrator's now; the mismatched one is not.
      expect((await queues(existing.token)).status).toBe(200);
      expect((await queues(other.token)).status).toBe(403);
    });
    // An operator's revoke outlives ADMIN_USERS: the next start does not grant it again.
    expect((await adminCli(app, 'revoke', existing.username)).code).toBe(0);
    await restartWith(existing.id, port, async (_base, log) => {
      expect(log()).toMatch(/rights were revoked; not granted again/);
      expect((await queues(existing.token)).status).toBe(403);
    });
  });
});
