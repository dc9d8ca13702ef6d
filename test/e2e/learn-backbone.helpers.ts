import { expect } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { detectableShots } from '../support/animal-shots.js';
import { photoForm } from '../support/images.js';

/**
 * Fine-tuning the backbone on the owner's own animal photos (recipe finetuned-mobilenetv2-v3):
 * the PyTorch trainer runs for real on generated coats (tiny settings so it takes seconds), its
 * ONNX export is stored as the version, the adopted version shortlists identify through its
 * own embeddings (kept in learned_embeddings), and rollback returns to the base model. An
 * adoption trains the same recipe again on every photo and serves that model when it does no
 * worse (learn/keep-learned.ts).
 *
 * Two files share this herd: learn-backbone.spec.ts (the trainer, a refusal, a version adopted as a
 * job) and learn-backbone-served.spec.ts (an adopted version served, retrained, judged, rolled back),
 * each on a service of its own, so the two run side by side.
 */
export const tiny = { epochs: 2, height: 64, width: 96, dim: 32, freeze: 40, margin: 0.2, threads: 1 };
/**
 * The retrain on every photo must at least keep the judged model's top-1 on photos it now trained
 * on. Two epochs leave that to floating-point luck (a different CPU once ranked one of the three
 * the other way), so the run whose retrain the test expects to serve trains long enough to learn
 * its photos.
 */
export const settled = { ...tiny, epochs: 8 };

export interface BackboneHerd {
  app: TestApp;
  owner: { token: string; id: string };
  other: { token: string; id: string };
  /** The three animals enrolled, three photos each. */
  dids: string[];
  /** Each animal's fourth photo, never enrolled. */
  queries: Buffer[];
}

/** A service with an owner's herd of three generated elephants, and a second account with none. */
export async function startBackboneHerd(): Promise<BackboneHerd> {
  const app = await startTestApp({ mode: 'embedded' });
  const owner = await signup(app.url, 'herd');
  const other = await signup(app.url, 'other');
  const dids: string[] = [];
  const queries: Buffer[] = [];
  for (const coat of [702, 703, 704]) {
    const shots = (await detectableShots(coat, 4)).map((s) => s.photo);
    const r = await api(app.url, 'POST', '/api/animal/enroll', {
      token: owner.token,
      body: photoForm(shots.slice(0, 3), { species: 'elephant', farm_id: 'ft' }),
    });
    expect(r.status, r.text).toBe(200);
    dids.push(r.json.animal_did);
    queries.push(shots[3]!);
  }
  return { app, owner, other, dids, queries };
}

/** Identify the herd's query photo `k` as `token`'s account. */
export async function identifyAs(h: BackboneHerd, token: string, k: number) {
  const r = await api(h.app.url, 'POST', '/api/animal/identify', { token, body: photoForm([h.queries[k]!]) });
  expect(r.status, r.text).toBe(200);
  return r.json;
}

export async function countRows(h: BackboneHerd, sql: string, args: unknown[]): Promise<number> {
  return Number((await h.app.container.db.query<{ n: number }>(sql, args)).rows[0]!.n);
}
