import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCandidateModel } from '../../models/candidate.js';
import { promoteModel, rollbackModel } from '../../workers/src/recognition/model-lifecycle.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { signupAdmin } from '../support/admin.js';
import { otherView, photoForm, textureImage } from '../support/images.js';

// Candidates must sit inside the models folder (MODELS_DIR); beforeAll makes a fresh one.
const ENV: Record<string, string> = {};
const PW = 'Bark-and-peel-42';
const CANDIDATE = 'markless-texture@1.1.0-candidate';

/** The part of an identify answer that a model decides (the query id differs per request). */
const decided = (j: any) => ({ verdict: j.verdict, model: j.model, candidates: j.candidates, match: j.match });

describe('models in: register (checked), shadow, promote and roll back (embedded)', () => {
  let app: TestApp;
  let dataDir: string;
  let modelDir: string;
  let admin: string;
  let owner: { token: string; id: string };
  const probes: Buffer[] = [];
  const before: ReturnType<typeof decided>[] = [];

  const identify = async (photo: Buffer) => {
    const r = await api(app.url, 'POST', '/api/identify', { token: owner.token, body: photoForm([photo]) });
    expect(r.status).toBe(200);
    return r.json;
  };
  const restart = async () => {
    await app.stop();
    app = await startTestApp({ dataDir, env: ENV });
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'markless-models-'));
    ENV.MODELS_DIR = await mkdtemp(path.join(os.tmpdir(), 'markless-models-root-'));
    modelDir = await mkdtemp(path.join(ENV.MODELS_DIR, 'candidate-'));
    writeCandidateModel(modelDir);
    app = await startTestApp({ dataDir, env: ENV });
    admin = (await signupAdmin(app, 'models_admin', PW)).token;
    owner = await signup(app.url);
    for (const seed of [81, 82, 83]) {
      const surface = await textureImage(seed, 384);
      const enrol = await Promise.all([1, 2].map((k) => otherView(surface, seed * 10 + k)));
      expect((await api(app.url, 'POST', '/api/enroll', { token: owner.token, body: photoForm(enrol) })).status).toBe(200);
      probes.push(await otherView(surface, seed * 10 + 7));
    }
    for (const p of probes) before.push(decided(await identify(p)));
  }, 240_000);
  afterAll(async () => {
    await app?.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(ENV.MODELS_DIR!, { recursive: true, force: true });
  });

  it('refuses a model whose bytes do not match the manifest sha256, and leaves nothing behind', async () => {
    const bad = await mkdtemp(path.join(ENV.MODELS_DIR!, 'badmodel-'));
    try {
      writeCandidateModel(bad, { version: '9.9.9-tampered' });
      const m = JSON.parse(readFileSync(path.join(bad, 'manifest.json'), 'utf8'));
      m.models[0].sha256 = 'a'.repeat(64);
      writeFileSync(path.join(bad, 'manifest.json'), JSON.stringify(m));
      const r = await api(app.url, 'POST', '/api/admin/models', { token: admin, json: { dir: bad }, headers: { 'accept-language': 'en' } });
      expect(r.status).toBe(422);
      expect(r.json.code).toBe('model_refused');
      expect(r.json.error).toMatch(/sha256/);
      const rows = await app.container.db.query('select 1 from model_registrations');
      expect(rows.rows).toHaveLength(0);
      expect(existsSync(path.join(dataDir, 'models', 'markless-texture@9.9.9-tampered'))).toBe(false);
      const notAdmin = await api(app.url, 'POST', '/api/admin/models', { token: owner.token, json: { dir: modelDir } });
      expect(notAdmin.status).toBe(403);
    } finally {
      await rm(bad, { recursive: true, force: true });
    }
  });

  it('scores live requests in shadow without changing any answer, and reports agreement and label accuracy', async () => {
    const reg = await api(app.url, 'POST', '/api/admin/models', { token: admin, json: { dir: modelDir, shadow_share: 1 } });
    expect(reg.status, reg.text).toBe(200);
    expect(reg.json).toMatchObject({ model: CANDIDATE, status: 'shadow', reembedded: 6 });
    const again = [];
    for (const p of probes) again.push(await identify(p));
    expect(again.map(decided)).toEqual(before);
    const shadow = await app.container.db.query<{ query_id: string; engine: { version: string } }>(
      'select query_id, engine from shadow_scores',
    );
    expect(new Set(shadow.rows.map((r) => r.query_id))).toEqual(new Set(again.map((a) => a.query_id)));
    expect(shadow.rows.every((r) => r.engine.version.startsWith('1.1.0-candidate'))).toBe(true);
    await api(app.url, 'POST', '/api/identify_verdict', { token: owner.token, form: { query_id: again[0].query_id, verdict: 'correct' } });
    const report = await api(app.url, 'GET', '/api/admin/models', { token: admin });
    expect(report.status).toBe(200);
    const m = report.json.models.find((x: { model: string }) => x.model === CANDIDATE);
    expect(m).toMatchObject({ status: 'shadow', scored: 3, labelled: 1, served_accuracy: 1 });
    expect(m.agreement).toBeGreaterThanOrEqual(0);
    expect(m.agreement).toBeLessThanOrEqual(1);
  });

  it('promote switches the serving model; roll back restores the previous model’s answers exactly', async () => {
    await promoteModel(app.container, CANDIDATE);
    await restart();
    const promoted = await identify(probes[0]!);
    expect(promoted.model.version.startsWith('1.1.0-candidate')).toBe(true);
    expect(await rollbackModel(app.container)).toEqual({ rolled_back: CANDIDATE, serving: 'bundled' });
    await restart();
    const after = [];
    for (const p of probes) after.push(decided(await identify(p)));
    expect(after).toEqual(before);
  }, 180_000);
});
