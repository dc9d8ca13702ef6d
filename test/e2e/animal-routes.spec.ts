import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '../../api/src/http/route.js';
import { buildRoutes } from '../../api/src/routes/index.js';
import { createServices } from '../../api/src/services/index.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { detectableShots } from '../support/animal-shots.js';
import { photoForm } from '../support/images.js';

/**
 * Spec 4 and 9: every animal route exists under /api/animal/... and /animal/... with the same
 * behaviour. The route table is enumerated (nothing listed by hand), each pair is checked to be
 * the same definition, and then both are called with the same requests and must answer alike.
 */

const MISSING = 'did:markless:animal:00000000-0000-4000-8000-000000000000';
const GENERIC = '/api/{entity_type}/';

/** The /api path a mirror route stands for: its own /api/animal twin, or the generic timeline route. */
const apiTwinPaths = (mirror: string) => [
  mirror.replace(/^\/animal\//, '/api/animal/'),
  mirror.replace(/^\/animal\/\{entity_id\}\//, `${GENERIC}{entity_id}/`),
];

let app: TestApp;
let routes: RouteDef[];
let owner: { token: string };
let did: string;
let eventId: string;

beforeAll(async () => {
  app = await startTestApp({ engine: 'deterministic', mode: 'embedded' });
  routes = buildRoutes(app.container, createServices(app.container));
  owner = await signup(app.url, 'mirror');
  const shots = (await detectableShots(703, 3)).map((s) => s.photo);
  const r = await api(app.url, 'POST', '/api/animal/enroll', {
    token: owner.token,
    body: photoForm(shots, { species: 'elephant', farm_id: 'm' }),
  });
  expect(r.status, r.text).toBe(200);
  did = r.json.animal_did;
  const ev = await api(app.url, 'POST', `/api/animal/${did}/event`, { token: owner.token, json: { type: 'note' } });
  eventId = ev.json.event.event_id;
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

describe('the /animal mirror of every animal route', () => {
  it('mounts every /api/animal route under /animal as the same definition, hidden from docs', () => {
    const animal = routes.filter((r) => r.path.startsWith('/api/animal/'));
    expect(animal.length).toBeGreaterThanOrEqual(18);
    for (const r of animal) {
      const twin = routes.find((m) => m.method === r.method && m.path === r.path.replace(/^\/api\/animal\//, '/animal/'));
      expect(twin, `${r.method} ${r.path}`).toBeDefined();
      expect(twin!.hidden, r.path).toBe(true);
      for (const k of ['handler', 'body', 'query', 'params', 'upload', 'access', 'bodyType'] as const)
        expect(twin![k], `${r.path} ${k}`).toBe(r[k]);
    }
    // The spec's animal table, each present on both prefixes.
    const spec = [
      'post enroll',
      'post identify',
      'post scan',
      'post detect',
      'post verify',
      'post identify_verdict',
      'get list',
      'get {animal_did}',
      'delete {animal_did}',
      'get {animal_did}/model3d',
      'post rename',
      'get drift/report',
      'get demo',
      'get field',
      'get fee/estimate',
      'get trust/tiers',
      'post trust/verify-inclusion',
      'get provenance/demo',
    ];
    for (const row of spec) {
      const [method, rest] = row.split(' ');
      for (const prefix of ['/api/animal/', '/animal/'])
        expect(
          routes.some((r) => r.method === method && r.path === prefix + rest),
          `${row} under ${prefix}`,
        ).toBe(true);
    }
  });

  it('has an /api twin for every /animal route (own twin or the generic timeline route with entity_type animal)', () => {
    const mirrors = routes.filter((r) => r.path.startsWith('/animal/'));
    for (const m of mirrors) {
      const twin = routes.find((r) => r.method === m.method && apiTwinPaths(m.path).includes(r.path));
      expect(twin, `${m.method} ${m.path}`).toBeDefined();
      expect(twin!.handler, m.path).toBe(m.handler);
    }
  });

  it('answers the same requests identically under both prefixes', async () => {
    const fill = (p: string, id: string) =>
      p.replace('{animal_did}', id).replace('{entity_id}', id).replace('{event_id}', eventId).replace('{entity_type}', 'animal');
    const mirrors = routes.filter((r) => r.path.startsWith('/animal/'));
    let compared = 0;
    for (const m of mirrors) {
      // Reads use the real animal; anything that writes is aimed at a missing one, so both calls meet the same state.
      const id = m.method === 'get' ? did : MISSING;
      const suffix = m.method === 'get' ? '?farm_id=m&describe=true' : '';
      const send = (path: string, token?: string) =>
        api(app.url, m.method.toUpperCase(), fill(path, id) + suffix, {
          token,
          ...(m.method === 'get' ? {} : { body: photoForm([], {}) }),
        });
      const apiPath = `/api${m.path}`;
      for (const token of [owner.token, undefined]) {
        const [a, b] = [await send(apiPath, token), await send(m.path, token)];
        expect(b.status, `${m.method} ${m.path} (${token ? 'signed in' : 'anonymous'})`).toBe(a.status);
        // Each multipart body has its own random boundary, which a 415 names; nothing else may differ.
        const same = (r: typeof a) => JSON.stringify(r.json ?? r.text).replace(/boundary=[-\w]+/g, 'boundary=…');
        expect(same(b), `${m.method} ${m.path}`).toEqual(same(a));
        if (!token && m.access === 'user') expect(a.status, m.path).toBe(401);
        compared++;
      }
    }
    expect(compared).toBe(mirrors.length * 2);
  });
});
