/**
 * A candidate global-embedding model made in code (never downloaded): the engineered embedder of
 * build-embedder.ts with other block weights and its own version, written with a schema-2
 * manifest to a folder — the shape `npm run eval -- --model` and model registration take.
 *
 *   npx tsx models/candidate.ts <dir> [version]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildModel, manifestEntry } from './build-embedder.js';

export const CANDIDATE_WEIGHTS = { texture: 1.0, global: 0.3, layout: 1.0, colour: 0.2 };

/** Writes `<dir>/markless-texture-<version>.onnx` and `<dir>/manifest.json`; returns the entry. */
export function writeCandidateModel(dir: string, opts: { version?: string; weights?: typeof CANDIDATE_WEIGHTS } = {}) {
  const version = opts.version ?? '1.1.0-candidate';
  const weights = opts.weights ?? CANDIDATE_WEIGHTS;
  const bytes = buildModel(weights, version);
  const file = `markless-texture-${version}.onnx`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), bytes);
  const entry = {
    ...manifestEntry(bytes),
    version,
    file,
    block_weights: weights,
    source: {
      repository: 'markless (this repository)',
      path: 'models/candidate.ts',
      note: `build-embedder.ts graph with block weights ${JSON.stringify(weights)}`,
    },
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ schema: 2, models: [entry] }, null, 2) + '\n');
  return entry;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: npx tsx models/candidate.ts <dir> [version]');
  console.log(JSON.stringify(writeCandidateModel(dir, { version: process.argv[3] })));
}
