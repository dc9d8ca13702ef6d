import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRoutes } from '../../api/src/routes/index.js';
import { createServices } from '../../api/src/services/index.js';
import { SpeciesCatalog } from '../../api/src/discovery/species-catalog.js';
import type { RouteDef } from '../../api/src/http/route.js';
import { LIMITS } from '../../shared/src/domain/limits.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';

const DISCOVERY_FEATURES = ['api-index', 'docs', 'health', 'llms-txt', 'manifest', 'openapi', 'robots-txt', 'species-catalog'];
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const key = (method: string, p: string) => `${method.toUpperCase()} ${p}`;

/** Every (method, path) an OpenAPI document describes. */
function documented(doc: any): Set<string> {
  const out = new Set<string>();
  for (const [p, item] of Object.entries<any>(doc.paths)) for (const m of Object.keys(item)) if (METHODS.includes(m)) out.add(key(m, p));
  return out;
}

/** Every `$ref` anywhere in a JSON value. */
function refsIn(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refsIn(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsIn(v, out);
    }
  }
  return out;
}

const pointer = (doc: any, ref: string) =>
  ref
    .slice(2)
    .split('/')
    .reduce((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);

/** The document and the pages and files below read one service with the default settings. */
describe('discovery on one app with the default settings (embedded)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic', mode: 'embedded' });
  });
  afterAll(async () => {
    await app?.stop();
  });

  describe('discovery (embedded)', () => {
    let routes: RouteDef[];
    let visible: RouteDef[];
    let doc: any;
    beforeAll(async () => {
      // The table the app mounted, built independently of the discovery code under test.
      routes = buildRoutes(app.container, createServices(app.container));
      visible = routes.filter((r) => !r.hidden);
      doc = (await api(app.url, 'GET', '/openapi.json')).json;
    });

    it('serves a document that validates as OpenAPI 3.1', async () => {
      expect(doc.openapi).toMatch(/^3\.1\./);
      const result = await new Validator().validate(structuredClone(doc));
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      // The validator does reject a broken document, so the pass above means something.
      const broken = structuredClone(doc);
      broken.paths['/api/health'].get.responses = { 200: { content: {} } };
      expect((await new Validator().validate(broken)).valid).toBe(false);
    });

    it('documents exactly the mounted, non-hidden routes', () => {
      const expected = new Set(visible.map((r) => key(r.method, r.path)));
      expect([...documented(doc)].sort()).toEqual([...expected].sort());
      for (const r of routes.filter((x) => x.hidden)) expect(documented(doc).has(key(r.method, r.path))).toBe(false);
      expect(documented(doc)).toContain('GET /openapi.json');
    });

    it('has no documented route that answers route_not_found', async () => {
      for (const k of documented(doc)) {
        const [method, template] = k.split(' ') as [string, string];
        const p = template.replace(/\{\w+\}/g, 'probe-1');
        const r = await api(app.url, method, p, method === 'GET' || method === 'HEAD' ? {} : { json: {} });
        expect(r.json?.code, `${k} -> ${r.status}`).not.toBe('route_not_found');
      }
    });

    it('resolves every $ref and keeps zod $defs out of the document', () => {
      const refs = refsIn(doc);
      expect(refs.some((r) => r.startsWith('#/$defs'))).toBe(false);
      for (const ref of refs) expect(pointer(doc, ref), ref).toBeDefined();
    });

    it('describes security, errors, limits and the 202 job pattern', () => {
      const schemes = doc.components.securitySchemes;
      expect(schemes.bearerAuth).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
      expect(schemes.cookieAuth).toEqual(expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'markless_session' }));
      for (const r of visible) {
        const op = doc.paths[r.path][r.method];
        if (r.access === 'public') expect(op.security, key(r.method, r.path)).toEqual([]);
        if (r.access === 'user' || r.access === 'admin') expect(op.security).toEqual([{ bearerAuth: [] }, { cookieAuth: [] }]);
        if (r.access === 'admin') expect(op.description).toMatch(/admin/i);
        expect(op.responses['429'], key(r.method, r.path)).toBeDefined();
      }
      expect(doc.components.responses.RateLimited.headers['Retry-After'].schema.type).toBe('integer');
      const info: string = doc.info.description;
      for (const needle of ['202', 'GET /api/jobs/{job_id}', 'Retry-After', '413', '422', '401', '20 MB', '64 MB', '80 MB']) {
        expect(info).toContain(needle);
      }
      expect(doc.info.version).toBe('2026.07.01');
    });

    it('generates request schemas from the zod schemas that validate', async () => {
      const signupBody = doc.paths['/api/signup'].post.requestBody.content['application/json'].schema;
      expect(signupBody.required).toEqual(expect.arrayContaining(['username', 'password']));
      const jobs = doc.paths['/api/jobs/{id}'].get.parameters;
      expect(jobs).toEqual([
        expect.objectContaining({ name: 'id', in: 'path', required: true, schema: expect.objectContaining({ maxLength: 200 }) }),
      ]);
      // The server refuses what the document forbids: a 201-character job id is a 422 naming `id`.
      const { token } = await signup(app.url, 'disc');
      const r = await api(app.url, 'GET', `/api/jobs/${'x'.repeat(201)}`, { token });
      expect(r.status).toBe(422);
      expect(r.json.detail).toBe('id');
      for (const r2 of visible.filter((x) => x.upload)) {
        const schema = doc.paths[r2.path][r2.method].requestBody.content['multipart/form-data'].schema;
        expect(schema.properties[r2.upload!.field]).toMatchObject({ type: 'array', items: { type: 'string', format: 'binary' } });
      }
    });

    it('lists the same /api routes at /api, with links to the docs', async () => {
      const r = await api(app.url, 'GET', '/api');
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ ok: true, docs: '/docs', openapi: '/openapi.json' });
      const listed = new Set<string>(r.json.routes.map((x: any) => `${x.method} ${x.path}`));
      const apiDocumented = [...documented(doc)].filter((k) => / \/api(\/|$)/.test(k));
      expect([...listed].sort()).toEqual(apiDocumented.sort());
      for (const x of r.json.routes) expect(x.summary.length).toBeGreaterThan(5);
    });
  });

  describe('discovery pages and files (embedded)', () => {
    let routes: RouteDef[];
    beforeAll(async () => {
      routes = buildRoutes(app.container, createServices(app.container)).filter((r) => !r.hidden);
    });

    it.each(['/docs'])('%s renders Swagger UI from local assets only, under a strict CSP', async (page) => {
      const r = await api(app.url, 'GET', page);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(r.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
      expect(r.headers.get('content-security-policy')).toMatch(/script-src 'self'(;|$)/);
      expect(r.text).not.toMatch(/https?:\/\/|\/\/[a-z0-9]/i);
      expect(r.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/i);
      const refs = [...r.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      const assets = refs.filter((u) => u.startsWith('/docs/assets/'));
      expect(assets.length).toBeGreaterThanOrEqual(4);
      const types: Record<string, RegExp> = { css: /^text\/css/, js: /^text\/javascript/, png: /^image\/png$/ };
      for (const u of assets) {
        const a = await fetch(app.url + u);
        expect(a.status, u).toBe(200);
        expect(a.headers.get('content-type'), u).toMatch(types[u.split('?')[0]!.split('.').pop()!]!);
        expect(a.headers.get('cache-control'), u).toMatch(/immutable/);
        expect(a.headers.get('etag')).toBeTruthy();
      }
    });

    it('configures Swagger UI to call nothing but this origin', async () => {
      const r = await fetch(`${app.url}/docs/assets/docs-init.js`);
      const js = await r.text();
      expect(js).toContain("url: '/openapi.json'");
      expect(js).toMatch(/validatorUrl:\s*null/);
      expect(js).toMatch(/queryConfigEnabled:\s*false/);
      expect(js).not.toMatch(/https?:\/\//);
    });

    it('serves only allow-listed assets, with revalidation', async () => {
      const first = await fetch(`${app.url}/docs/assets/swagger-ui.css`);
      await first.arrayBuffer();
      expect(first.headers.get('cache-control')).toBe('public, max-age=3600');
      const again = await fetch(`${app.url}/docs/assets/swagger-ui.css`, { headers: { 'if-none-match': first.headers.get('etag')! } });
      expect(again.status).toBe(304);
      for (const bad of ['package.json', 'swagger-initializer.js', '..%2F..%2Fpackage.json', 'index.html']) {
        const r = await api(app.url, 'GET', `/docs/assets/${bad}`);
        expect(r.status, bad).toBe(404);
        expect(r.json).toMatchObject({ ok: false, code: 'not_found' });
      }
    });

    it('serves llms.txt mapping every route, with auth, limits and links', async () => {
      const r = await api(app.url, 'GET', '/llms.txt');
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(r.text.startsWith('# markless\n')).toBe(true);
      for (const needle of ['Authorization: Bearer', '/openapi.json', '/docs', 'Retry-After', String(LIMITS.fileBytes)])
        expect(r.text).toContain(needle);
      for (const route of routes) expect(r.text).toContain(`${route.method.toUpperCase()} ${route.path} (${route.access})`);
    });

    it('serves robots.txt opening only the public surface', async () => {
      const r = await api(app.url, 'GET', '/robots.txt');
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
      const lines = r.text.split('\n');
      expect(lines).toEqual(
        expect.arrayContaining(['User-agent: *', 'Disallow: /api/', 'Allow: /api/health', 'Allow: /api/species/catalog', 'Allow: /api$']),
      );
      const publicGets = routes.filter((x) => x.access === 'public' && x.method === 'get').map((x) => x.path.split('{')[0]);
      for (const allow of lines.filter((l) => l.startsWith('Allow: ')).map((l) => l.slice(7).replace(/\$$/, ''))) {
        expect(publicGets, allow).toContain(allow);
      }
      expect(r.text).not.toContain('Allow: /api/me');
    });

    it('serves a manifest built from the live table and the limits', async () => {
      const r = await api(app.url, 'GET', '/.well-known/markless.json');
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ ok: true, service: 'markless', contract_version: '2026.07.01' });
      expect(r.json.limits).toMatchObject({
        file_bytes: LIMITS.fileBytes,
        image_batch_bytes: LIMITS.imageBatchBytes,
        video_bytes: LIMITS.videoBytes,
        token_ttl_s: 43200,
      });
      const noKey = r.json.no_key_routes.map((x: any) => `${x.method} ${x.path}`).sort();
      expect(noKey).toEqual(
        routes
          .filter((x) => x.access === 'public')
          .map((x) => key(x.method, x.path))
          .sort(),
      );
      expect(r.json.entity_kinds.map((k: any) => k.kind)).toEqual(['tree', 'fruit', 'animal']);
      const table = new Set(routes.map((x) => key(x.method, x.path)));
      for (const kind of r.json.entity_kinds) for (const x of kind.routes) expect(table).toContain(`${x.method} ${x.path}`);
      expect(r.json.links).toMatchObject({ docs: '/docs', openapi: '/openapi.json', llms: '/llms.txt' });
    });

    it('serves a real species catalogue', async () => {
      const r = await api(app.url, 'GET', '/api/species/catalog');
      expect(r.status).toBe(200);
      expect(r.json.ok).toBe(true);
      expect(r.json.error).toBeUndefined();
      const byName = new Map<string, any>(r.json.species.map((s: any) => [s.scientific_name, s]));
      expect(byName.get('Durio zibethinus')).toMatchObject({ kind: 'fruit', name_vi: 'Sầu riêng', name_en: 'Durian' });
      expect(byName.get('Coffea canephora')).toMatchObject({ kind: 'tree' });
      expect(byName.get('Bubalus bubalis')).toMatchObject({ kind: 'animal', name_vi: 'Trâu' });
      expect(byName.get('Tragelaphus angasii')).toMatchObject({ kind: 'animal' });
      for (const s of r.json.species) expect(s.scientific_name).toMatch(/^[A-Z][a-z]+ [a-z]+( [a-z]+)?$/);
      expect(new Set(r.json.species.map((s: any) => s.id)).size).toBe(r.json.species.length);
      const activities = r.json.activities.map((a: any) => a.id);
      expect(activities).toEqual(
        expect.arrayContaining(['fertilising', 'spraying', 'pruning', 'irrigation', 'harvest', 'vaccination', 'deworming', 'feeding']),
      );
    });

    it('answers unknown routes with a 404 JSON error body', async () => {
      const r = await api(app.url, 'GET', '/api/no-such-route');
      expect(r.status).toBe(404);
      expect(r.json).toMatchObject({ ok: false, code: 'route_not_found' });
      expect(r.json.error).toMatch(/\S+ \S+/);
      const en = await api(app.url, 'GET', '/nope', { headers: { 'accept-language': 'en' } });
      expect(en.json.error).toBe('No such route.');
    });

    it('lists the discovery features in health, and only features that have routes', async () => {
      const r = await api(app.url, 'GET', '/api/health');
      expect(r.json.features).toEqual(expect.arrayContaining(DISCOVERY_FEATURES));
      for (const f of r.json.features)
        expect(
          routes.some((x) => x.feature === f),
          f,
        ).toBe(true);
      expect([...r.json.features].sort()).toEqual([...new Set(routes.map((x) => x.feature).filter(Boolean))].sort());
    });
  });
});

describe('species catalogue file missing or broken', () => {
  let dir: string;
  let app: TestApp;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'markless-catalog-'));
    app = await startTestApp({ engine: 'deterministic', mode: 'embedded', env: { SPECIES_CATALOG: path.join(dir, 'missing.json') } });
  });
  afterAll(async () => {
    await app?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers 200 with empty lists and a Vietnamese error sentence', async () => {
    const r = await api(app.url, 'GET', '/api/species/catalog');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ ok: true, species: [], activities: [] });
    expect(r.json.error).toMatch(/[ăâđêôơưạ-ỹ]/);
    expect(r.json.error).toMatch(/\.$/);
    const en = await api(app.url, 'GET', '/api/species/catalog', { headers: { 'accept-language': 'en' } });
    expect(en.json.error).toMatch(/could not be read/);
    expect((await api(app.url, 'GET', '/api/health')).status).toBe(200);
  });

  it('treats a malformed file like a missing one, then picks up a fixed file later', async () => {
    const file = path.join(dir, 'broken.json');
    await writeFile(file, '{"species": [ {"id": "durian"');
    let now = 0;
    const catalog = new SpeciesCatalog(file, () => now);
    expect(await catalog.body('vi')).toMatchObject({ species: [], activities: [], error: expect.any(String) });
    await writeFile(
      file,
      JSON.stringify({
        species: [{ id: 'mango', kind: 'fruit', scientific_name: 'Mangifera indica', name_vi: 'Xoài', name_en: 'Mango' }],
        activities: [],
      }),
    );
    expect((await catalog.body('vi')).species).toEqual([]);
    now += 31_000;
    const fixed = await catalog.body('vi');
    expect(fixed.error).toBeUndefined();
    expect(fixed.species.map((s) => s.id)).toEqual(['mango']);
  });
});
