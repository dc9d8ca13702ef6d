/**
 * Evaluates recognition engines on a labels export (docs/data-science.md): the export's
 * gallery photos are enrolled, each labelled identify query is identified again, and the same
 * metrics as bench:accuracy are computed (metrics.ts). A candidate model comes from a folder
 * holding its ONNX file and a schema-2 manifest.json; the registry checks its sha256.
 */
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { unzipSync } from 'fflate';
import type { ExportRow } from '../shared/src/datasci/export-format.js';
import { Embedder } from '../workers/src/vision/embed.js';
import { RecognitionEngine, type Descriptor } from '../workers/src/vision/engine.js';
import { loadRegistry, readManifestFile } from '../workers/src/vision/registry.js';
import type { Kind } from '../workers/src/vision/settings.js';
import { IndexedGallery, mapSource } from '../workers/src/index/gallery.js';
import { OwnerIndex } from '../workers/src/index/owner-index.js';
import { summarise, type Outcome } from './metrics.js';

/** An export read back: its rows and a way to get each photo's bytes. */
export interface LabelSet {
  rows: ExportRow[];
  bytes(path: string): Uint8Array;
}

/** Reads an export folder (from `npm run export:labels`) or one zip page from the export route. */
export function readLabels(path: string): LabelSet {
  const p = resolve(path);
  if (!existsSync(p)) throw new Error(`--labels ${path}: no such folder or zip`);
  if (statSync(p).isDirectory()) {
    const rows = readFileSync(join(p, 'manifest.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as ExportRow);
    return { rows, bytes: (f) => readFileSync(join(p, f)) };
  }
  const files = unzipSync(readFileSync(p));
  const rows = new TextDecoder()
    .decode(files['manifest.jsonl']!)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ExportRow);
  return { rows, bytes: (f) => files[f] ?? new Uint8Array() };
}

/** The engine of a candidate folder: its global embedding plus the registry's other models. */
export async function candidateEngine(dir: string): Promise<RecognitionEngine> {
  const abs = resolve(dir);
  const entry = readManifestFile(abs).models.find((m) => m.role === 'global-embedding');
  if (!entry) throw new Error(`${abs}/manifest.json has no global-embedding model`);
  const embedder = await Embedder.load({ ...entry, dir: abs, origin: 'operator' }, { provider: 'auto' });
  return RecognitionEngine.create({ embedder, calibration: {}, registry: loadRegistry({ operatorDir: abs }) });
}

/** A labelled query: its photos and who they show (null: the label says nobody enrolled). */
interface LabelledQuery {
  query_id: string;
  expect: string | null;
  paths: string[];
  answer_top1: string;
}

/** Queries whose label says who they show, or that nobody enrolled does. */
export function labelledQueries(rows: readonly ExportRow[], kind: string): LabelledQuery[] {
  const by = new Map<string, LabelledQuery>();
  for (const r of rows) {
    if (r.split !== 'query' || r.kind !== kind || !r.label) continue;
    if (r.label !== 'unknown_ok' && !r.identity) continue; // "wrong" without the right id: truth unknown
    const q = by.get(r.query_id) ?? {
      query_id: r.query_id,
      expect: r.label === 'unknown_ok' ? null : r.identity,
      paths: [],
      answer_top1: r.answer_top1,
    };
    q.paths.push(r.path);
    by.set(r.query_id, q);
  }
  return [...by.values()];
}

/** Enrols the export's gallery with `engine`, identifies every labelled query, and summarises. */
export async function evaluate(engine: RecognitionEngine, labels: LabelSet, kind: Kind) {
  const gallery = labels.rows.filter((r) => r.split === 'gallery' && r.kind === kind);
  const local = new Map<string, Uint8Array>();
  const index = new OwnerIndex(join(os.tmpdir(), `markless-eval-${process.pid}-${Date.now()}`), engine.model.version, engine.dim);
  const describe = (path: string): Promise<Descriptor> => engine.describe(labels.bytes(path), { kind, enforceQuality: false });
  const indexRows = [];
  for (const g of gallery) {
    const d = await describe(g.path);
    local.set(g.image_id, d.local);
    indexRows.push({ id: g.image_id, individualId: g.identity, kind, vector: d.global });
  }
  index.rebuild(indexRows);
  const lookup = new IndexedGallery(index, { kind }, mapSource(local));
  const outcomes: (Outcome & { query_id: string; answer_top1: string })[] = [];
  for (const q of labelledQueries(labels.rows, kind)) {
    const ds = [];
    for (const p of q.paths) ds.push(await describe(p));
    const res = await engine.identify({ kind, queries: ds, gallery: lookup });
    outcomes.push({ expect: q.expect, ranked: res.ranked, verdict: res.verdict, query_id: q.query_id, answer_top1: q.answer_top1 });
  }
  rmSync(index.dir, { recursive: true, force: true });
  const m = summarise(outcomes);
  return {
    model: engine.model,
    models: engine.models,
    n_gallery: gallery.length,
    ...m,
    per_query: m.per_query.map((p, i) => ({
      ...p,
      query_id: outcomes[i]!.query_id,
      top1: outcomes[i]!.ranked[0]?.individualId ?? null,
      answered_top1: outcomes[i]!.answer_top1 || null,
    })),
    calibration: engine.calibrationFor(kind),
  };
}
