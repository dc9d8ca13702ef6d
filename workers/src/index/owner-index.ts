/**
 * A per-owner HNSW index (hnswlib-node, cosine) over global embeddings,
 * filtered by kind / farm_id / tree_id. It is a cache: the database is the
 * source of truth, `rebuild(rows)` recreates it, and `isStale()` says when it
 * must be rebuilt (row count, model version or the set of ids changed).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import hnswlib from 'hnswlib-node';
import type { Kind } from '../vision/settings.js';

/** One embedding row, as stored in the database. */
export interface IndexRow {
  /** Embedding (image) id, unique per owner. */
  id: string;
  /** The individual the image was enrolled for. */
  individualId: string;
  kind: Kind;
  farmId?: string | null;
  treeId?: string | null;
  vector: Float32Array;
}

/** Narrows a search; every given field must match. */
export interface IndexFilter {
  kind: Kind;
  farmId?: string | null;
  treeId?: string | null;
  /** Restrict to these individuals (e.g. a caller-supplied candidate list). */
  individualIds?: ReadonlySet<string>;
}

export interface IndexHit {
  id: string;
  individualId: string;
  /** Cosine similarity, 1 = identical direction. */
  similarity: number;
}

/** What the database says the index should contain; compared by `isStale`. */
export interface IndexExpectation {
  modelVersion: string;
  count: number;
  idsChecksum: string;
}

type Meta = Omit<IndexRow, 'vector'>;
interface MetaFile {
  modelVersion: string;
  dim: number;
  idsChecksum: string;
  /** Indexed by HNSW label; null where the row was removed. */
  entries: (Meta | null)[];
}

const HNSW_FILE = 'hnsw.bin';
const META_FILE = 'meta.json';

/** Order-independent checksum of a set of ids. */
export function checksumIds(ids: Iterable<string>): string {
  const sorted = [...ids].sort();
  return createHash('sha256').update(sorted.join('\n')).digest('hex').slice(0, 32);
}

export class OwnerIndex {
  private hnsw: hnswlib.HierarchicalNSW | undefined;
  private entries: Meta[] = [];
  private byId = new Map<string, number>();

  constructor(
    /** Folder holding this owner's index files. */
    readonly dir: string,
    readonly modelVersion: string,
    readonly dim: number,
  ) {}

  get size(): number {
    return this.byId.size;
  }

  /** Replaces the whole index with `rows` and persists it. */
  rebuild(rows: readonly IndexRow[]): void {
    this.hnsw = new hnswlib.HierarchicalNSW('cosine', this.dim);
    this.hnsw.initIndex({ maxElements: Math.max(16, rows.length), m: 16, efConstruction: 100, randomSeed: 42, allowReplaceDeleted: false });
    this.entries = [];
    this.byId.clear();
    this.add(rows);
    this.save();
  }

  /** Adds rows (an id already present is replaced). Call `save()` to persist. */
  add(rows: readonly IndexRow[]): void {
    if (!this.hnsw) throw new Error('index not built: call rebuild() or load()');
    const need = this.entries.length + rows.length;
    if (need > this.hnsw.getMaxElements()) this.hnsw.resizeIndex(Math.max(need, this.hnsw.getMaxElements() * 2));
    for (const r of rows) {
      if (r.vector.length !== this.dim) throw new Error(`vector dim ${r.vector.length} != ${this.dim}`);
      const old = this.byId.get(r.id);
      if (old !== undefined) this.hnsw.markDelete(old);
      const label = this.entries.length;
      const { vector, ...meta } = r;
      this.entries.push(meta);
      this.byId.set(r.id, label);
      this.hnsw.addPoint(Array.from(vector), label);
    }
  }

  /** Removes ids from search results. */
  remove(ids: Iterable<string>): void {
    for (const id of ids) {
      const label = this.byId.get(id);
      if (label === undefined || !this.hnsw) continue;
      this.hnsw.markDelete(label);
      this.byId.delete(id);
    }
  }

  /** The `k` nearest rows passing the filter, most similar first. */
  search(vector: Float32Array, k: number, filter: IndexFilter): IndexHit[] {
    if (!this.hnsw || this.byId.size === 0) return [];
    const pass = (label: number): boolean => {
      const e = this.entries[label];
      if (!e || this.byId.get(e.id) !== label || e.kind !== filter.kind) return false;
      if (filter.farmId != null && e.farmId !== filter.farmId) return false;
      if (filter.treeId != null && e.treeId !== filter.treeId) return false;
      return !filter.individualIds || filter.individualIds.has(e.individualId);
    };
    let eligible = 0;
    for (const label of this.byId.values()) if (pass(label)) eligible++;
    const kk = Math.min(k, eligible);
    if (kk === 0) return [];
    this.hnsw.setEf(Math.max(64, kk * 2));
    const res = this.hnsw.searchKnn(Array.from(vector), kk, pass);
    return res.neighbors.map((label, i) => {
      const e = this.entries[label]!;
      return { id: e.id, individualId: e.individualId, similarity: 1 - res.distances[i]! };
    });
  }

  /** Persists to `dir` (atomic per file). */
  save(): void {
    if (!this.hnsw) return;
    mkdirSync(this.dir, { recursive: true });
    const tmp = join(this.dir, `${HNSW_FILE}.tmp`);
    this.hnsw.writeIndexSync(tmp);
    renameSync(tmp, join(this.dir, HNSW_FILE));
    const live = this.entries.map((e, label) => (this.byId.get(e.id) === label ? e : null));
    const meta: MetaFile = { modelVersion: this.modelVersion, dim: this.dim, idsChecksum: checksumIds(this.byId.keys()), entries: live };
    writeFileSync(join(this.dir, `${META_FILE}.tmp`), JSON.stringify(meta));
    renameSync(join(this.dir, `${META_FILE}.tmp`), join(this.dir, META_FILE));
  }

  /** Loads persisted files; returns false when they are missing, unreadable or for another model. */
  load(): boolean {
    const metaPath = join(this.dir, META_FILE);
    const binPath = join(this.dir, HNSW_FILE);
    if (!existsSync(metaPath) || !existsSync(binPath)) return false;
    try {
      const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as MetaFile;
      if (meta.modelVersion !== this.modelVersion || meta.dim !== this.dim) return false;
      const h = new hnswlib.HierarchicalNSW('cosine', this.dim);
      h.readIndexSync(binPath);
      this.hnsw = h;
      this.entries = meta.entries.map((e) => e ?? { id: '', individualId: '', kind: 'tree' });
      this.byId = new Map(meta.entries.flatMap((e, label) => (e ? [[e.id, label] as [string, number]] : [])));
      return true;
    } catch {
      return false;
    }
  }

  /** True when the in-memory index does not reflect what the database holds. */
  isStale(expected: IndexExpectation): boolean {
    return (
      !this.hnsw ||
      expected.modelVersion !== this.modelVersion ||
      expected.count !== this.byId.size ||
      expected.idsChecksum !== checksumIds(this.byId.keys())
    );
  }
}

/**
 * Opens an owner's index from disk, rebuilding it from the database rows when
 * the files are missing or stale. `loadRows` is only called when needed.
 */
export async function openOwnerIndex(opts: {
  root: string;
  ownerId: string;
  modelVersion: string;
  dim: number;
  expected: IndexExpectation;
  loadRows: () => Promise<IndexRow[]>;
}): Promise<{ index: OwnerIndex; rebuilt: boolean }> {
  const safe = createHash('sha256').update(opts.ownerId).digest('hex').slice(0, 24);
  const index = new OwnerIndex(join(opts.root, safe), opts.modelVersion, opts.dim);
  if (index.load() && !index.isStale(opts.expected)) return { index, rebuilt: false };
  index.rebuild(await opts.loadRows());
  return { index, rebuilt: true };
}
