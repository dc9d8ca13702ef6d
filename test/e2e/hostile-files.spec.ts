/**
 * Hostile files (issue 21): zip bombs that lie about their entry count or sizes, unsafe entry
 * names, a decompression-bomb PNG, a video whose second stream is 7680×4320, zero-byte files and
 * truncated JPEGs. The API runs as a child process so that a frozen event loop shows up as an
 * unanswered `/api/health` (probed throughout each hostile request) instead of freezing the test.
 * Each refusal must come with the right status, a whole sentence, and leave nothing behind. How
 * fast it is refused is measured by benchmarks/hostile-files.ts, not asserted here.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, type MessageCode } from '../../shared/src/domain/messages.js';
import { signup, type Mode } from '../support/app.js';
import { startChildApp, type ChildApp } from '../support/child-app.js';
import { batchForm } from '../support/fruit-batch.js';
import { clipWithHugeSecondStream, pngBomb, rawZip, zip64EntryCountBomb } from '../support/hostile.js';
import { photoForm, textureImage } from '../support/images.js';
import { videoForm } from '../support/video.js';

/** Archive caps lowered so that modest test archives pass them; pixel and video caps stay at their defaults. */
const ENV = { ARCHIVE_MAX_ENTRIES: '50', ARCHIVE_MAX_INFLATED_BYTES: '1000000', JOB_WAIT_MS: '3000' };

const SENTENCE = /^\S.*\S[.!?]$/s;

describe.each<Mode>(['embedded', 'distributed'])('hostile files (%s)', (mode) => {
  let app: ChildApp;
  let token: string;
  let db: pg.Client | undefined;

  beforeAll(async () => {
    app = await startChildApp(mode, ENV);
    token = (await signup(app.url, 'hostile')).token;
    if (mode === 'distributed') {
      db = new pg.Client({ connectionString: app.env.DATABASE_URL });
      await db.connect();
    }
  }, 180_000);
  afterAll(async () => {
    await db?.end();
    await app?.stop();
  });

  /** What a refused request must not change: every table's row count (distributed) or the blob files (embedded), and the batch list. */
  async function state(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    const list = await fetch(`${app.url}/api/fruit/batches`, { headers: { authorization: `Bearer ${token}` } });
    out.batches = JSON.stringify(await list.json()).length;
    if (db) {
      const tables = await db.query<{ t: string }>(
        `select table_name as t from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
      );
      for (const { t } of tables.rows) out[t] = (await db.query<{ n: number }>(`select count(*)::int as n from "${t}"`)).rows[0]!.n;
    } else {
      out.blob_files = await countFiles(path.join(app.env.DATA_DIR!, 'blobs'));
    }
    return out;
  }

  /**
   * Send `form` to `route` while probing `/api/health` back to back; answer the response, and how
   * many probes were sent meanwhile and how many of them went unanswered.
   */
  async function hostile(route: string, form: FormData) {
    let done = false;
    const health: boolean[] = [];
    const probe = (async () => {
      while (!done) {
        const r = await fetch(`${app.url}/api/health`, { signal: AbortSignal.timeout(5_000) }).catch(() => null);
        health.push(r?.ok ?? false);
        await r?.arrayBuffer().catch(() => undefined);
        await new Promise((res) => setTimeout(res, 20));
      }
    })();
    const r = await fetch(app.url + route, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'accept-language': 'en' },
      body: form,
      signal: AbortSignal.timeout(60_000),
    });
    const json = (await r.json()) as any;
    done = true;
    await probe;
    return { status: r.status, json, probes: health.length, unanswered: health.filter((ok) => !ok).length };
  }

  /** The refusal: the status, a catalogue code whose vi and en texts are whole sentences, health answered throughout, nothing kept. */
  async function expectRefused(route: string, form: FormData, status: number, code: string) {
    const before = await state();
    const r = await hostile(route, form);
    expect(r.status, JSON.stringify(r.json)).toBe(status);
    expect(r.json.ok).toBe(false);
    expect(r.json.code).toBe(code);
    expect(r.json.error).toMatch(SENTENCE);
    expect(messages[code as MessageCode].vi).toMatch(SENTENCE);
    expect(r.probes).toBeGreaterThan(0);
    expect(r.unanswered).toBe(0);
    expect(app.alive()).toBe(true);
    expect(await state()).toEqual(before);
    return r;
  }

  const archiveForm = (zip: Buffer) => batchForm([], {}, zip);

  it('refuses the 98-byte zip64 archive claiming 0xFFFFFFFF entries with 413', async () => {
    const zip = zip64EntryCountBomb();
    expect(zip.length).toBe(98);
    const r = await expectRefused('/api/fruit/batch', archiveForm(zip), 413, 'archive_too_many_entries');
    expect(r.json.error).toContain('4294967295');
  });

  it('refuses an entry that declares 1,000 bytes but inflates to 30 MB (422, a lie) without inflating it', async () => {
    const zip = rawZip([{ name: 'a.jpg', data: Buffer.alloc(30_000_000), declaredSize: 1_000 }]);
    expect(zip.length).toBeLessThan(100_000);
    await expectRefused('/api/fruit/batch', archiveForm(zip), 422, 'archive_entry_size_mismatch');
  });

  it('refuses an honestly declared 19 MB entry compressed over 100:1 (413, ratio)', async () => {
    await expectRefused(
      '/api/fruit/batch',
      archiveForm(rawZip([{ name: 'a.jpg', data: Buffer.alloc(19_000_000) }])),
      413,
      'archive_ratio_too_high',
    );
  });

  it('counts the bytes really inflated: five directory entries sharing one 300 KB body pass the 1 MB total (413)', async () => {
    const body = randomBytes(300_000);
    const zip = rawZip([{ name: 'a.jpg', data: body }, ...[1, 2, 3, 4].map((i) => ({ name: `b${i}.jpg`, data: body, sameDataAs: 0 }))]);
    expect(zip.length).toBeLessThan(400_000);
    await expectRefused('/api/fruit/batch', archiveForm(zip), 413, 'archive_inflated_too_large');
  });

  it('refuses more entries than ARCHIVE_MAX_ENTRIES (413)', async () => {
    const zip = rawZip(Array.from({ length: 60 }, (_, i) => ({ name: `p${i}.jpg`, data: Buffer.from(`photo ${i}`) })));
    await expectRefused('/api/fruit/batch', archiveForm(zip), 413, 'archive_too_many_entries');
  });

  it('refuses a zero-byte archive (422)', async () => {
    await expectRefused('/api/fruit/batch', archiveForm(Buffer.alloc(0)), 422, 'batch_archive_invalid');
  });

  it('gives every entry a row: "../x", an absolute path and a control character are refused with a reason, "__proto__" is kept', async () => {
    const photo = await textureImage(2101, 96);
    const zip = rawZip([
      { name: '../x.jpg', data: photo },
      { name: '__proto__', data: photo },
      { name: '/etc/evil.jpg', data: photo },
      { name: 'bell\u0007.jpg', data: photo },
      { name: 'empty.jpg', data: Buffer.alloc(0) },
      { name: 'ok.jpg', data: photo },
    ]);
    const r = await fetch(`${app.url}/api/fruit/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'accept-language': 'en' },
      body: archiveForm(zip),
    });
    const created = (await r.json()) as any;
    expect(r.status, JSON.stringify(created)).toBe(202);
    expect(created.total).toBe(6);
    const got = (await (
      await fetch(`${app.url}/api/fruit/batch/${created.batch_id}`, {
        headers: { authorization: `Bearer ${token}`, 'accept-language': 'en' },
      })
    ).json()) as any;
    const rows = Object.fromEntries(got.rows.map((x: any) => [x.file_name, x]));
    expect(Object.keys(rows).sort()).toEqual(['../x.jpg', '/etc/evil.jpg', '__proto__', 'bell?.jpg', 'empty.jpg', 'ok.jpg'].sort());
    for (const n of ['../x.jpg', '/etc/evil.jpg', 'bell?.jpg']) {
      expect(rows[n].status).toBe('failed');
      expect(rows[n].reason).toMatch(/unsafe name/);
      expect(rows[n].reason).toMatch(SENTENCE);
    }
    expect(rows['empty.jpg'].status).toBe('failed');
    expect(rows['__proto__'].reason ?? '').not.toMatch(/unsafe/);
    await fetch(`${app.url}/api/fruit/batch/${created.batch_id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
  });

  describe('a decompression-bomb PNG (8000×8000, a few hundred KB) is refused before decoding', () => {
    let bomb: Buffer;
    beforeAll(() => {
      bomb = pngBomb(8000);
      expect(bomb.length).toBeLessThan(1_000_000);
    });
    it.each(['/api/care/match', '/api/identify', '/api/scan', '/api/enroll'])('%s answers 413', async (route) => {
      const r = await expectRefused(
        route,
        photoForm([bomb], route === '/api/enroll' ? { species: 'pomelo' } : {}),
        413,
        'image_too_many_pixels',
      );
      expect(r.json.error).toContain('8000×8000');
    });
    it('a fruit batch refuses that photo in its own row', async () => {
      const r = await fetch(`${app.url}/api/fruit/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'accept-language': 'en' },
        body: batchForm([{ name: 'bomb.png', bytes: bomb }]),
      });
      const created = (await r.json()) as any;
      expect(r.status, JSON.stringify(created)).toBe(202);
      const got = (await (
        await fetch(`${app.url}/api/fruit/batch/${created.batch_id}`, {
          headers: { authorization: `Bearer ${token}`, 'accept-language': 'en' },
        })
      ).json()) as any;
      expect(got.rows).toHaveLength(1);
      expect(got.rows[0].status).toBe('failed');
      expect(got.rows[0].reason).toMatch(/over the limit of 50000000 pixels/);
      await fetch(`${app.url}/api/fruit/batch/${created.batch_id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    });
  });

  it('refuses a video whose second stream is 7680×4320 (422), though its first is 320×240', async () => {
    const clip = await clipWithHugeSecondStream();
    const r = await expectRefused('/api/identify/video', videoForm(clip), 422, 'video_too_big_frame');
    expect(r.json.error).toContain('7680×4320');
  }, 60_000);

  it('refuses zero-byte photos (422) on identify, OCR and scan', async () => {
    for (const route of ['/api/identify', '/api/care/match', '/api/scan'])
      await expectRefused(route, photoForm([Buffer.alloc(0)]), 422, 'file_empty');
  });

  it('refuses truncated JPEGs (422) where the API decodes them', async () => {
    const jpeg = await textureImage(2102, 256);
    for (const cut of [Math.floor(jpeg.length * 0.6), 200])
      await expectRefused('/api/scan', photoForm([jpeg.subarray(0, cut)]), 422, 'image_undecodable');
  });
});

async function countFiles(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  let n = 0;
  for (const e of entries) n += e.isDirectory() ? await countFiles(path.join(dir, e.name)) : 1;
  return n;
}
