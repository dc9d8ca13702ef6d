/**
 * Descriptors of dataset photos kept between benchmark runs, outside the repository (the photos'
 * derivatives are not ours to commit). Keyed by the engine's identity, so a new model or pipeline
 * revision describes again. Previews are dropped: only a fine-tuned backbone needs them.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { Descriptor, RecognitionEngine } from '../workers/src/vision/engine.js';

export function descriptorCache(
  engine: RecognitionEngine,
  dataset: string,
): {
  get(file: string, describe: () => Promise<Descriptor>): Promise<Descriptor>;
  save(): void;
} {
  const dir = path.join(os.tmpdir(), 'markless-descriptor-cache');
  const file = path.join(dir, `${dataset}-${engine.model.version.replace(/[^\w.@+-]/g, '_')}.v8`);
  const map: Map<string, Descriptor> = existsSync(file) ? deserialize(readFileSync(file)) : new Map();
  let dirty = false;
  return {
    async get(key, describe) {
      const hit = map.get(key);
      if (hit) return hit;
      const { preview: _preview, ...d } = await describe();
      map.set(key, d);
      dirty = true;
      return d;
    },
    save() {
      if (!dirty) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, serialize(map));
      dirty = false;
    },
  };
}
