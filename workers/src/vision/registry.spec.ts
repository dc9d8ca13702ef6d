import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLED_MODELS_DIR, loadRegistry, ModelIntegrityError, openSession, readManifestFile, readModelBytes } from './registry.js';

const tmp = mkdtempSync(join(tmpdir(), 'markless-models-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('model registry (models/manifest.json)', () => {
  it('lists every bundled model with its licence, source, sha256, tensors, preprocessing and kinds', () => {
    const m = readManifestFile(BUNDLED_MODELS_DIR);
    expect(m.models.map((e) => e.name)).toEqual(expect.arrayContaining(['markless-texture', 'yolox-nano-coco', 'xfeat-backbone']));
    const reg = loadRegistry({ operatorDir: null });
    for (const e of reg.entries) {
      expect(readModelBytes(e).byteLength).toBe(e.bytes);
      expect(e.licence.length).toBeGreaterThan(3);
    }
    expect(reg.pick('detector', 'animal')!.name).toBe('yolox-nano-coco');
    expect(reg.pick('global-embedding', 'tree')!.name).toBe('markless-texture');
  });

  it('refuses a model file whose sha256 is not the manifest one, before opening a session', async () => {
    const entry = loadRegistry({ operatorDir: null }).get('markless-texture');
    const dir = join(tmp, 'tampered');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const bytes = readModelBytes(entry);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0xff, bytes.length - 1);
    writeFileSync(join(dir, entry.file), bytes);
    const { dir: _d, origin: _o, ...plain } = entry;
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ schema: 2, models: [{ ...plain, name: 'tampered-texture' }] }));
    const reg = loadRegistry({ operatorDir: dir });
    const bad = reg.get('tampered-texture');
    expect(() => readModelBytes(bad)).toThrow(ModelIntegrityError);
    await expect(openSession(bad)).rejects.toThrow(/sha256/);
    // A missing file is refused the same way.
    rmSync(join(dir, entry.file));
    expect(() => readModelBytes(bad)).toThrow(/missing/);
  });

  it("prefers an operator's model (MODELS_DIR) for the role and kind it declares", async () => {
    const base = loadRegistry({ operatorDir: null }).get('markless-texture');
    const dir = join(tmp, 'operator');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(base.dir, base.file), join(dir, 'reid.onnx'));
    const { dir: _d, origin: _o, ...plain } = base;
    writeFileSync(
      join(dir, 'manifest.json'),
      JSON.stringify({
        schema: 2,
        models: [{ ...plain, name: 'operator-reid', version: '7.0.0', file: 'reid.onnx', kinds: ['animal'], licence: 'operator-supplied' }],
      }),
    );
    const reg = loadRegistry({ operatorDir: dir });
    expect(reg.pick('global-embedding', 'animal')).toMatchObject({ name: 'operator-reid', origin: 'operator' });
    expect(reg.pick('global-embedding', 'tree')).toMatchObject({ name: 'markless-texture', origin: 'bundled' });
    const { provider } = await openSession(reg.pick('global-embedding', 'animal')!, { provider: 'cpu' });
    expect(provider).toBe('cpu');
  });

  it('rejects a malformed manifest with the bad fields named', () => {
    const dir = join(tmp, 'malformed');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'manifest.json'),
      JSON.stringify({ schema: 2, models: [{ name: 'x', version: '1', role: 'detector', file: 'x.onnx', sha256: 'nope' }] }),
    );
    expect(() => loadRegistry({ operatorDir: dir })).toThrow(/sha256/);
  });
});

describe('a model version in the manifest is part of the engine version', () => {
  it('bumping the detector entry changes the version stored on descriptors, which is what schedules the re-embed job', async () => {
    const { RecognitionEngine } = await import('./engine.js');
    const bundled = await RecognitionEngine.create({ registry: loadRegistry({ operatorDir: null }) });
    const det = loadRegistry({ operatorDir: null }).get('yolox-nano-coco');
    const dir = join(tmp, 'bumped');
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(det.dir, det.file), join(dir, det.file));
    const { dir: _d, origin: _o, ...plain } = det;
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ schema: 2, models: [{ ...plain, version: '9.9.9' }] }));
    const bumped = await RecognitionEngine.create({ registry: loadRegistry({ operatorDir: dir }) });
    expect(bumped.model.name).toBe(bundled.model.name);
    expect(bumped.model.version).not.toBe(bundled.model.version);
    expect(bumped.model.version).toContain('yolox-nano-coco@9.9.9');
    expect(bumped.models).toContainEqual({ name: 'yolox-nano-coco', version: '9.9.9' });
  });
});
