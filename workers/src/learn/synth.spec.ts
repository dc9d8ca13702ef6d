/**
 * The synthetic-individuals generator (training/synth) and the re-identification trainer
 * (training/reid.py) on a tiny run, through the same wrapper as `npm run synth` and
 * `npm run train:reid` (scripts/train-python.mjs). The ONNX it writes is loaded by the service's
 * own loaders, as a trained backbone (OwnerBackbone) and as a global embedding from MODELS_DIR
 * (the registry and Embedder), so both layouts are the ones the engine runs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeImage } from '../vision/intake.js';
import { Embedder } from '../vision/embed.js';
import { loadRegistry } from '../vision/registry.js';
import { OwnerBackbone } from './backbone.js';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const WRAPPER = join(ROOT, 'scripts', 'train-python.mjs');
const PYTHON = process.env.TRAIN_PYTHON ?? '/usr/bin/python3';
const probe = spawnSync(PYTHON, ['-c', 'import torch, onnx, numpy, PIL'], { encoding: 'utf8' });
const canTrain = probe.status === 0;
if (!canTrain)
  console.warn(`synth.spec: skipped, ${PYTHON} cannot import torch, onnx, numpy and PIL (scripts/setup.sh installs python3-torch)`);

const IDS = 6;
const VIEWS = 3;

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const p = spawn(process.execPath, [WRAPPER, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, OMP_NUM_THREADS: '1' },
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-8000)));
    p.on('error', fail);
    p.on('close', (code) => done({ code: code ?? 1, stdout, stderr }));
  });
}

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort();
}

const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/** A colour histogram of the middle of a photo (4 levels per channel), for a crude "how alike". */
async function histogram(file: string): Promise<Float64Array> {
  const img = sharp(readFileSync(file));
  const { width, height } = await img.metadata();
  const w = Math.max(1, Math.round(width * 0.6));
  const h = Math.max(1, Math.round(height * 0.6));
  const rgb = await img
    .extract({ left: Math.round((width - w) / 2), top: Math.round((height - h) / 2), width: w, height: h })
    .raw()
    .toBuffer();
  const hist = new Float64Array(64);
  for (let i = 0; i < rgb.length; i += 3) hist[(rgb[i]! >> 6) * 16 + (rgb[i + 1]! >> 6) * 4 + (rgb[i + 2]! >> 6)]! += 3 / rgb.length;
  return hist;
}

const l1 = (a: Float64Array, b: Float64Array): number => a.reduce((s, v, i) => s + Math.abs(v - b[i]!), 0);

interface Manifest {
  generator: string;
  seed: number;
  kinds: string[];
  sibling_groups: string[][];
  identities: { label: string; family: string; member: number; surface: string; views: { file: string; sha256: string }[] }[];
}

describe.skipIf(!canTrain)('synthetic individuals: generate twice, train one epoch, load the ONNX', () => {
  const dir = mkdtempSync(join(tmpdir(), 'markless-synth-'));
  const a = join(dir, 'a');
  const b = join(dir, 'b');
  let manifest: Manifest;

  beforeAll(async () => {
    const args = (out: string) => [
      'training/synth/cli.py',
      '--kind',
      'animal',
      '--identities',
      String(IDS),
      '--views',
      String(VIEWS),
      '--size',
      '96',
      '--seed',
      '1',
      '--siblings',
      '0.5',
      '--out',
      out,
    ];
    const [ra, rb] = await Promise.all([run(args(a)), run(args(b))]);
    expect(ra.code, ra.stderr).toBe(0);
    expect(rb.code, rb.stderr).toBe(0);
    manifest = JSON.parse(readFileSync(join(a, 'manifest.json'), 'utf8')) as Manifest;
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the same bytes twice: every photo and the manifest', () => {
    const fa = files(a);
    expect(fa).toEqual(files(b));
    expect(fa).toHaveLength(IDS * VIEWS + 1);
    for (const f of fa) expect(sha(join(b, f)), f).toBe(sha(join(a, f)));
  });

  it('lists every identity, its views with their hashes, the seed, the version and the sibling groups', () => {
    expect(manifest.generator).toMatch(/^markless-synth-/);
    expect(manifest.seed).toBe(1);
    expect(manifest.identities).toHaveLength(IDS);
    for (const it of manifest.identities) {
      expect(it.label).toMatch(/^animal\/\d{5}$/);
      expect(it.views).toHaveLength(VIEWS);
      for (const [n, v] of it.views.entries()) {
        expect(v.file).toBe(`${it.label}/${n}.jpg`);
        expect(sha(join(a, v.file))).toBe(v.sha256);
      }
    }
    // Siblings share a family and its surface; each group is listed once, with real labels.
    const labels = new Set(manifest.identities.map((i) => i.label));
    for (const group of manifest.sibling_groups) {
      expect(group.length).toBeGreaterThan(1);
      const members = manifest.identities.filter((i) => group.includes(i.label));
      expect(members).toHaveLength(group.length);
      expect(new Set(members.map((m) => m.family)).size).toBe(1);
      expect(new Set(members.map((m) => m.surface)).size).toBe(1);
      for (const l of group) expect(labels.has(l)).toBe(true);
    }
  });

  it('makes identities that differ, and views of one identity more alike than views of two', async () => {
    const hists = await Promise.all(manifest.identities.map((it) => Promise.all(it.views.map((v) => histogram(join(a, v.file))))));
    let within = 0;
    let nWithin = 0;
    let between = 0;
    let nBetween = 0;
    for (let i = 0; i < hists.length; i++) {
      for (let j = i; j < hists.length; j++) {
        for (let p = 0; p < VIEWS; p++) {
          for (let q = 0; q < VIEWS; q++) {
            if (i === j && q <= p) continue;
            const d = l1(hists[i]![p]!, hists[j]![q]!);
            if (i === j) {
              within += d;
              nWithin++;
            } else {
              between += d;
              nBetween++;
            }
          }
        }
      }
    }
    expect(new Set(manifest.identities.map((it) => it.views[0]!.sha256)).size).toBe(IDS);
    expect(within / nWithin).toBeLessThan(between / nBetween);
  });

  it('trains one epoch and writes ONNX the service loads (a trained backbone and a global embedding), embedding to the asked size', async () => {
    const out = join(dir, 'reid.onnx');
    const registry = join(dir, 'registry');
    const train = [
      '--data',
      a,
      '--out',
      out,
      '--epochs',
      '1',
      '--height',
      '64',
      '--width',
      '96',
      '--dim',
      '32',
      '--threads',
      '1',
      '--val',
      '0',
    ];
    const r = await run(['training/reid.py', ...train, '--registry', registry, '--side', '64']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      input: number[];
      dim: number;
      losses: number[];
      data: { identities: number };
    };
    expect(report).toMatchObject({ input: [3, 64, 96], dim: 32, data: { identities: IDS } });
    expect(report.losses).toHaveLength(1);
    expect(Number.isFinite(report.losses[0])).toBe(true);
    const model = await OwnerBackbone.fromBytes(new Uint8Array(readFileSync(out)), { height: 64, width: 96, dim: 32 });
    const photos = await Promise.all(
      manifest.identities.slice(0, 2).map((it) => decodeImage(new Uint8Array(readFileSync(join(a, it.views[0]!.file))))),
    );
    const vectors = await model.embed(photos);
    expect(vectors).toHaveLength(2);
    for (const v of vectors) {
      expect(v).toHaveLength(32);
      expect(Math.hypot(...v)).toBeCloseTo(1, 3);
    }
    // The same network as a global embedding: the registry takes it from MODELS_DIR for animals.
    const entry = loadRegistry({ operatorDir: registry }).pick('global-embedding', 'animal')!;
    expect(entry).toMatchObject({ name: 'markless-synth-reid', origin: 'operator', kinds: ['animal'] });
    const global = await Embedder.load(entry, { provider: 'cpu' });
    expect(global.side).toBe(64);
    const [g] = await global.embed([photos[0]!]);
    expect(g).toHaveLength(32);
    expect(Math.hypot(...g!)).toBeCloseTo(1, 3);
  }, 60_000);
});
