/**
 * What the kind-calibration benchmarks share (kind-calibration.ts for one photo, kind-pairs.ts for
 * pairs): a development set's photos with their capture sessions, herds cut from its individuals,
 * a herd enrolled in memory, and stages cached between runs outside the repository.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Candidate, Descriptor, GalleryLookup, RecognitionEngine } from '../workers/src/vision/engine.js';
import { descriptorCache } from './descriptor-cache.js';
import { memoryGallery, type GalleryEntry } from './owner-fit.js';

export interface Photo {
  path: string;
  id: string;
  session: string;
}
export interface Dataset {
  name: string;
  root: string;
  fitIds: string[];
  evalIds: string[];
  gallery: Photo[];
  queries: { path: string; truth: string; enrolled: boolean; session: string }[];
  describe(p: string): Promise<Descriptor>;
  save(): void;
}

/** The capture session a file name carries (holstein-dev: `<video start>_<video end>_<frame>_…`), else the photo alone. */
export const sessionOf = (p: string): string => /^(\d{14})_\d{14}_/.exec(path.basename(p))?.[1] ?? p;

/**
 * A development set (`../shared/datasets/<name>`). `split`: `halves` fits on the even places of the
 * sorted ids and evaluates on the odd ones; `none` uses every id for both.
 */
export async function loadDataset(engine: RecognitionEngine, name: string, split: string): Promise<Dataset> {
  const protoPath = path.resolve(`../shared/datasets/${name}/protocol.json`);
  const root = path.dirname(protoPath);
  const proto = JSON.parse(await readFile(protoPath, 'utf8')) as {
    gallery: { id: string; path: string }[];
    queries: { path: string; expect: string | null }[];
  };
  const ids = [...new Set(proto.gallery.map((g) => g.id))].sort();
  const cache = descriptorCache(engine, name);
  return {
    name,
    root,
    fitIds: split === 'none' ? ids : ids.filter((_, i) => i % 2 === 0),
    evalIds: split === 'none' ? ids : ids.filter((_, i) => i % 2 === 1),
    gallery: proto.gallery
      .map((g) => ({ path: g.path, id: g.id, session: `${g.id}/${sessionOf(g.path)}` }))
      .sort((a, b) => (a.path < b.path ? -1 : 1)),
    queries: proto.queries
      .map((q) => {
        const truth = q.expect ?? `stranger:${path.basename(path.dirname(q.path))}`;
        return { path: q.path, truth, enrolled: q.expect !== null, session: `${truth}/${sessionOf(q.path)}` };
      })
      .sort((a, b) => (a.path < b.path ? -1 : 1)),
    describe: (p) =>
      cache.get(p, async () =>
        engine.describe(new Uint8Array(await readFile(path.join(root, p))), { kind: 'animal', enforceQuality: false }),
      ),
    save: () => cache.save(),
  };
}

/** Herds of `sizes` from `ids`, consecutive and wrapping around (0: every id). */
export function herdsOf(ids: readonly string[], herdSizes: readonly number[]): string[][] {
  let at = 0;
  return herdSizes.map((s) => {
    if (s === 0 || s >= ids.length) return [...ids];
    const herd = Array.from({ length: s }, (_, i) => ids[(at + i) % ids.length]!);
    at = (at + s) % ids.length;
    return herd;
  });
}

/** Every n-th of a list, spread over it (at most `max`). */
export const spread = <T>(list: readonly T[], max: number): T[] =>
  list.length <= max ? [...list] : Array.from({ length: max }, (_, i) => list[Math.floor((i * list.length) / max)]!);

/** A list grouped by a key, in first-seen order. */
export function groupBy<T>(list: readonly T[], key: (x: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const x of list) out.set(key(x), [...(out.get(key(x)) ?? []), x]);
  return out;
}

/** A herd enrolled in memory: every gallery photo of its members. */
export async function enrolHerd(ds: Dataset, members: ReadonlySet<string>): Promise<{ gallery: GalleryLookup; photos: number }> {
  const entries: GalleryEntry[] = [];
  for (const g of ds.gallery.filter((x) => members.has(x.id)))
    entries.push({ id: g.path, individualId: g.id, d: await ds.describe(g.path) });
  return { gallery: memoryGallery(entries), photos: entries.length };
}

/**
 * A stage's result kept between runs outside the repository (identifying thousands of queries
 * takes most of an hour on 2 cores), keyed by the engine and every argument that shapes it.
 */
export async function stage<T>(engine: RecognitionEngine, name: string, key: unknown, compute: () => Promise<T>): Promise<T> {
  const dir = path.join(os.tmpdir(), 'markless-kind-calibration');
  const file = path.join(
    dir,
    `${name}-${createHash('sha256')
      .update(JSON.stringify([engine.model.version, key]))
      .digest('hex')
      .slice(0, 16)}.json`,
  );
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as T;
  const value = await compute();
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, JSON.stringify(value));
  return value;
}

/** Candidates as stored between runs: evidence only, margins recomputed by `rerank`. */
export const slim = (ranked: readonly Candidate[]): Candidate[] =>
  ranked.map((c) => ({ individualId: c.individualId, probability: c.probability, evidence: c.evidence, imageIds: [] }));
