import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCandidateModel } from '../../models/candidate.js';
import { messages } from '../../shared/src/domain/messages.js';
import { api, startTestApp, type TestApp } from '../support/app.js';
import { signupAdmin } from '../support/admin.js';

/** POST /api/admin/models must not tell whether some folder elsewhere on the server exists. */
describe('model registration reads only the models folder (embedded)', () => {
  let app: TestApp;
  let admin: string;
  let root: string;
  let outside: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'markless-models-root-'));
    outside = await mkdtemp(path.join(os.tmpdir(), 'markless-outside-'));
    // A well-formed candidate outside the models folder, and a link to it from inside.
    writeCandidateModel(outside, { version: '7.7.7-outside' });
    await mkdir(path.join(root, 'empty'));
    await symlink(outside, path.join(root, 'sneaky'));
    // Where a folder may be read from is decided before any model is loaded: the deterministic engine.
    app = await startTestApp({ engine: 'deterministic', env: { MODELS_DIR: root } });
    admin = (await signupAdmin(app, 'models_chief')).token;
  });
  afterAll(async () => {
    await app?.stop();
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  const register = (dir: string) =>
    api(app.url, 'POST', '/api/admin/models', { token: admin, json: { dir }, headers: { 'accept-language': 'en' } });

  it('answers one and the same 422 for any folder outside it, existing or not', async () => {
    const probes = [
      outside, // exists, and even holds a valid candidate
      '/etc',
      '/',
      os.tmpdir(), // exist
      '/no/such/folder/anywhere',
      path.join(outside, 'missing'), // do not exist
      '../../../../etc',
      `../${path.basename(outside)}`, // relative escapes
      'sneaky',
      path.join(root, 'sneaky'), // inside by name, outside once the link is followed
      'not-there', // inside, but missing
    ];
    const answers = await Promise.all(probes.map(register));
    for (const [i, r] of answers.entries()) {
      expect(r.status, probes[i]).toBe(422);
      expect(r.json, probes[i]).toMatchObject({ code: 'model_dir_not_allowed', error: messages.model_dir_not_allowed.en });
      expect(r.text, probes[i]).toBe(answers[0]!.text);
    }
    expect((await app.container.db.query('select 1 from model_registrations')).rows).toHaveLength(0);
  });

  it('reads a folder inside it (an empty one is refused for its content, not its place)', async () => {
    const r = await register('empty');
    expect(r.status).toBe(422);
    expect(r.json.code).toBe('model_refused');
    expect(r.json.error).toMatch(/manifest\.json/);
  });
});
