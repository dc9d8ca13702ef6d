/**
 * `npm run bench:ocr-flood -- [--out FILE] [--side 7000]`
 *
 * Several accounts send huge label photos (nearly blank PNGs just under IMAGE_MAX_PIXELS, small on
 * the wire) to `POST /api/care/match` at once, through HTTP, while `/api/health` is probed every
 * 100 ms. Run side by side on one machine: the service unbounded (every photo read at full size,
 * no limit on concurrent reads, as before the OCR bound) and as served (the defaults). Reports, per
 * setting: the health latency while the photos are read, each photo's status and time, and the
 * API process's peak memory.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { freePort, spawnEntry, until } from '../test/support/process.js';
import { machineInfo, parseArgs, percentile, saveResult } from './machine.js';

const args = parseArgs(process.argv.slice(2));
const SIDE = Number(args.get('side') ?? 7000);
const PHOTOS = 5;

const SETTINGS: Array<{ name: string; env: Record<string, string> }> = [
  { name: 'unbounded', env: { OCR_MAX_CONCURRENT: '100', OCR_MAX_PER_ACCOUNT: '100', OCR_MAX_SIDE: '10000' } },
  { name: 'served', env: {} },
];

/** A label photo: white with a few dark bars, so tesseract has something to look at. */
async function hugeLabel(): Promise<Buffer> {
  const bars = Array.from({ length: 12 }, (_, i) => ({
    input: { create: { width: Math.round(SIDE * 0.6), height: Math.round(SIDE * 0.01), channels: 3 as const, background: '#111111' } },
    top: Math.round(SIDE * (0.2 + i * 0.05)),
    left: Math.round(SIDE * 0.2),
  }));
  return sharp({ create: { width: SIDE, height: SIDE, channels: 3, background: '#ffffff' } })
    .composite(bars)
    .png({ compressionLevel: 9 })
    .toBuffer();
}

async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Math.round(kb / 1024);
}

async function runOne(setting: (typeof SETTINGS)[number], photo: Buffer) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-bench-ocr-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawnEntry('api/src/main.ts', {
    MODE: 'embedded',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    COMMIT: 'bench',
    ...setting.env,
  });
  try {
    await until(async () => (await fetch(`${base}/api/health`).catch(() => null))?.ok, 120_000, 200);
    const tokens: string[] = [];
    for (let i = 0; i < PHOTOS; i++) {
      const r = await fetch(`${base}/api/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: `ocr_${i}_${Date.now()}`, password: 'Bark-and-peel-42' }),
      });
      tokens.push(((await r.json()) as { token: string }).token);
    }
    const health: number[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        const t = performance.now();
        await fetch(`${base}/api/health`).catch(() => undefined);
        health.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const send = async (token: string, delayMs: number) => {
      await new Promise((r) => setTimeout(r, delayMs));
      const form = new FormData();
      form.append('files', new Blob([new Uint8Array(photo)], { type: 'image/png' }), 'label.png');
      const t = performance.now();
      const r = await fetch(`${base}/api/care/match`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'accept-language': 'en' },
        body: form,
      });
      const body = (await r.json()) as { code?: string };
      return {
        status: r.status,
        code: body.code ?? null,
        retry_after: r.headers.get('retry-after'),
        seconds: Math.round((performance.now() - t) / 100) / 10,
      };
    };
    // Four at once, then a fifth a moment later from a fifth account.
    const answers = await Promise.all(tokens.map((tk, i) => send(tk, i < 4 ? 0 : 300)));
    probing = false;
    await prober;
    return {
      setting: setting.name,
      env: setting.env,
      health_ms: {
        probes: health.length,
        p50: Math.round(percentile(health, 50)),
        p99: Math.round(percentile(health, 99)),
        max: Math.round(Math.max(...health)),
      },
      photos: answers,
      api_peak_rss_mb: await peakRssMb(child.proc.pid!),
    };
  } finally {
    child.proc.kill('SIGTERM');
    await child.exited;
    await rm(dir, { recursive: true, force: true });
  }
}

const photo = await hugeLabel();
const runs = [];
for (const s of SETTINGS) runs.push(await runOne(s, photo));
const result = {
  benchmark: 'ocr-flood',
  date: new Date().toISOString(),
  photo: { side: SIDE, bytes: photo.length },
  machine: machineInfo('local'),
  runs,
};
console.log(JSON.stringify(result, null, 2));
saveResult(args.get('out'), result);
