import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildModel } from '../../../models/build-embedder.js';
import { Embedder, readManifest } from './embed.js';
import { decodeImage } from './intake.js';
import { barkView } from './testing/synthetic.js';

describe('embedding model', () => {
  const manifest = readManifest();

  it('matches the sha256 in models/manifest.json and is small', () => {
    const bytes = readFileSync(join(manifest.dir, manifest.file));
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(manifest.sha256);
    expect(bytes.byteLength).toBeLessThan(5 * 2 ** 20);
  });

  it('is reproduced byte for byte by its build script', () => {
    expect(createHash('sha256').update(buildModel()).digest('hex')).toBe(manifest.sha256);
  });

  it('gives deterministic, L2-normalised embeddings and reports its provider', async () => {
    const e = await Embedder.load();
    expect(['cpu', 'cuda']).toContain(e.provider);
    expect(e.model).toEqual({ name: manifest.name, version: manifest.version });
    const img = await decodeImage(await barkView(11, { left: 0, top: 0, size: 300 }));
    const [a] = await e.embed([img]);
    const [b] = await e.embed([img]);
    expect(a).toHaveLength(e.dim);
    expect(Array.from(a!)).toEqual(Array.from(b!));
    const norm = Math.sqrt(a!.reduce((s, v) => s + v * v, 0));
    expect(norm).toBeCloseTo(1, 5);
  });

  it('runs on the CPU provider when asked to', async () => {
    const e = await Embedder.load(undefined, { provider: 'cpu' });
    expect(e.provider).toBe('cpu');
  });
});
