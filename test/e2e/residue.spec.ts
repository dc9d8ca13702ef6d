/**
 * Residue interpretation against the real service, and stamps resolved through a real local
 * HTTP measurement store that is stopped in the middle of a request (fail-closed: UNKNOWN).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';

const STAMPS: Record<string, unknown> = {
  'S-rice-high': { stamp_id: 'S-rice-high', commodity: 'rice', measurements: [{ analyte: 'Cadimi', value: 500, unit: 'ug/kg' }] },
  'S-rice-low': { stamp_id: 'S-rice-low', commodity: 'gạo', measurements: [{ analyte: 'cadmium', value: 0.05, unit: 'mg/kg' }] },
  'S-bad-body': { stamp_id: 'S-bad-body', measurements: [{ analyte: 'cadmium', value: 'lots', unit: 'mg/kg' }] },
};

/** A tiny measurement store: GET /stamps/{id}. `S-cut` writes half an answer and waits to be killed. */
function startStore() {
  const sockets = new Set<Socket>();
  let onCut: (() => void) | null = null;
  const server = http.createServer((req, res) => {
    const id = decodeURIComponent((req.url ?? '').replace(/^\/stamps\//, ''));
    if (id === 'S-cut') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"stamp_id":"S-cut","measurements":[{"analyte":"cadm');
      onCut?.();
      return;
    }
    const body = STAMPS[id];
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'no such stamp' }));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return {
    server,
    sockets,
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
      ),
    /** Resolves when a request for S-cut is half answered. */
    cutReached: () =>
      new Promise<void>((resolve) => {
        onCut = resolve;
      }),
    /** Stops the store at once: no new connections, and every open one (mid-answer too) destroyed. */
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

const noScores = (json: unknown) => {
  const keys = JSON.stringify(json).match(/"(\w+)":/g) ?? [];
  for (const k of keys) expect(k).not.toMatch(/score|ratio|margin|percent|exceed/i);
};

describe('residue interpretation', () => {
  let app: TestApp;
  let withStore: TestApp;
  let token: string;
  const store = startStore();
  const interpret = async (json: unknown, lang = 'en') => {
    const r = await api(app.url, 'POST', '/api/residue/interpret', { json, headers: { 'accept-language': lang } });
    expect(r.status).toBe(200);
    noScores(r.json);
    return r.json;
  };
  const byStamps = async (stamps: string[], lang = 'en') => {
    const r = await api(withStore.url, 'POST', '/api/residue/interpret-by-stamps', {
      json: { stamps, region: 'An Giang' },
      token,
      headers: { 'accept-language': lang },
    });
    expect(r.status).toBe(200);
    noScores(r.json);
    return r.json;
  };

  beforeAll(async () => {
    const storeUrl = await store.listen();
    app = await startTestApp({ engine: 'deterministic' });
    withStore = await startTestApp({ engine: 'deterministic', env: { RESIDUE_STORE_URL: storeUrl, RESIDUE_STORE_TIMEOUT_MS: '20000' } });
    token = (await signup(withStore.url)).token;
  }, 180_000);
  afterAll(async () => {
    await Promise.all([app?.stop(), withStore?.stop()]);
    if (store.server.listening) await store.stop();
  });

  it('SAFE: well within every known limit, each limit with its source; cadmium risk low', async () => {
    const b = await interpret({
      commodity: 'rice',
      region: 'Đồng Tháp',
      measurements: [{ analyte: 'cadmium', value: 0.05, unit: 'mg/kg' }],
    });
    expect(b.verdict).toBe('SAFE');
    expect(b.alert).toBe('Good news: no residue is over any limit, so you can harvest and sell as usual.');
    const cd = b.residues[0].markets;
    expect(cd.find((m: any) => m.market === 'codex')).toMatchObject({
      status: 'within',
      limit_mg_kg: 0.4,
      source: { title: expect.stringMatching(/CXS 193-1995/) },
    });
    expect(cd.find((m: any) => m.market === 'vn')).toMatchObject({
      status: 'within',
      source: { title: expect.stringMatching(/QCVN 8-2:2011/) },
    });
    expect(b.cadmium_risk).toEqual({ region: 'Đồng Tháp', level: 'low' });
    expect(b.export_advisory.map((a: any) => [a.market, a.status])).toEqual([
      ['vn', 'ok'],
      ['codex', 'ok'],
      ['eu', 'unknown'],
    ]);
  });

  it('CAUTION: within the limits but at half a limit or more; cadmium risk medium', async () => {
    const b = await interpret({ commodity: 'rice', measurements: [{ analyte: 'Cd', value: 0.25, unit: 'ppm' }] });
    expect(b.verdict).toBe('CAUTION');
    expect(b.cadmium_risk).toEqual({ region: null, level: 'medium' });
  });

  it("WARNING: over an export market's limit only (EU default for chlorpyrifos-methyl)", async () => {
    const b = await interpret({ commodity: 'mango', measurements: [{ analyte: 'chlorpyrifos-methyl', value: 0.02, unit: 'mg/kg' }] });
    expect(b.verdict).toBe('WARNING');
    expect(b.export_advisory.find((a: any) => a.market === 'eu')).toMatchObject({ status: 'not_allowed' });
    expect(b.cadmium_risk).toBeUndefined();
  });

  it('DANGER: a substance banned in Vietnam, at any level (Vietnamese alert by default)', async () => {
    const r = await api(app.url, 'POST', '/api/residue/interpret', {
      json: { commodity: 'mango', measurements: [{ analyte: 'Clorpyrifos', value: 1, unit: 'ppb' }] },
    });
    expect(r.json.verdict).toBe('DANGER');
    expect(r.json.alert).toBe(
      'Nguy hiểm: Chlorpyrifos (chlorpyrifos ethyl) vượt giới hạn hoặc là chất cấm, đừng bán lô này và hãy hỏi cán bộ khuyến nông.',
    );
    expect(r.json.residues[0].markets.find((m: any) => m.market === 'vn')).toMatchObject({
      status: 'banned',
      source: { title: expect.stringMatching(/10\/2020\/TT-BNNPTNT/) },
    });
  });

  it('DANGER: over the Codex and Vietnamese limits; cadmium risk high', async () => {
    const b = await interpret({ commodity: 'gạo', region: 'An Giang', measurements: [{ analyte: 'cadmium', value: 450, unit: 'µg/kg' }] });
    expect(b.verdict).toBe('DANGER');
    expect(b.cadmium_risk).toEqual({ region: 'An Giang', level: 'high' });
  });

  it('UNKNOWN: no limit known anywhere for a residue', async () => {
    const b = await interpret({
      commodity: 'rice',
      measurements: [
        { analyte: 'cadmium', value: 0.01, unit: 'mg/kg' },
        { analyte: 'zeta-unobtainium', value: 0.3, unit: 'mg/kg' },
      ],
    });
    expect(b.verdict).toBe('UNKNOWN');
    expect(b.alert).toMatch(/no limit is known for zeta-unobtainium/);
  });

  it('422 for a bad unit or no measurements', async () => {
    expect(
      (await api(app.url, 'POST', '/api/residue/interpret', { json: { measurements: [{ analyte: 'x', value: 1, unit: 'kg' }] } })).status,
    ).toBe(422);
    expect((await api(app.url, 'POST', '/api/residue/interpret', { json: { measurements: [] } })).status).toBe(422);
  });

  it('interpret-by-stamps needs a token, and with no store configured answers UNKNOWN', async () => {
    expect((await api(withStore.url, 'POST', '/api/residue/interpret-by-stamps', { json: { stamps: ['S-rice-low'] } })).status).toBe(401);
    const other = await signup(app.url);
    const r = await api(app.url, 'POST', '/api/residue/interpret-by-stamps', { json: { stamps: ['S-rice-low'] }, token: other.token });
    expect(r.json).toMatchObject({ ok: true, verdict: 'UNKNOWN', resolved: false, residues: [] });
  });

  it('resolves stamps through the store', async () => {
    expect(await byStamps(['S-rice-low'])).toMatchObject({
      verdict: 'SAFE',
      resolved: true,
      cadmium_risk: { region: 'An Giang', level: 'low' },
    });
    expect(await byStamps(['S-rice-low', 'S-rice-high'])).toMatchObject({ verdict: 'DANGER', resolved: true });
  });

  it('fail-closed: an unknown stamp or a malformed answer gives UNKNOWN, even beside a good stamp', async () => {
    for (const stamps of [['S-nope'], ['S-rice-low', 'S-nope'], ['S-bad-body']]) {
      const b = await byStamps(stamps);
      expect(b).toMatchObject({ verdict: 'UNKNOWN', resolved: false });
      expect(b.alert).toBe(
        'No conclusion is possible because the measurements could not be fetched from their store, so hold this lot and try again later.',
      );
      expect(b.export_advisory.every((a: any) => a.status === 'unknown')).toBe(true);
    }
  });

  it('fail-closed: the store stopped in the middle of a request gives UNKNOWN, and so does every request after', async () => {
    const cut = store.cutReached();
    const pending = byStamps(['S-rice-low', 'S-cut']);
    await cut;
    await store.stop();
    expect(await pending).toMatchObject({ verdict: 'UNKNOWN', resolved: false });
    expect(await byStamps(['S-rice-low'])).toMatchObject({ verdict: 'UNKNOWN', resolved: false });
  });
});
