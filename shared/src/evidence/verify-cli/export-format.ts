/**
 * The evidence export folder (FORMAT.md beside this file): its types, a
 * writer (used by the server's export and by tests) and a reader that never
 * throws on a broken folder, because the verifier must report each broken
 * part as a FAIL line rather than stop at the first one.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChainEvent, EventProof } from '../chain.js';
import type { SignedCheckpoint } from '../checkpoint.js';
import { canonicalCid } from '../cid.js';

export const EXPORT_FORMAT = 'markless-evidence-export';
export const EXPORT_VERSION = 1;

/** anchor.json for the `local` backend. */
export interface LocalAnchorFile {
  readonly backend: 'local';
  readonly checkpoint: SignedCheckpoint;
  readonly public_key: string;
  /** Opens the checkpoint's entity commitment (entity-commitment.ts); absent in logs that named the id. */
  readonly entity_salt?: string;
}

/** anchor.json for the `cardano` backend. */
export interface CardanoAnchorFile {
  readonly backend: 'cardano';
  readonly tx_hash: string;
  readonly tx_cbor_hex: string;
  readonly entity_salt?: string;
}

export type AnchorFile = LocalAnchorFile | CardanoAnchorFile;

/** record.json. */
export interface RecordFile {
  readonly cid: string;
  readonly hash: string;
  readonly record?: unknown;
}

/** Everything an export holds, in memory. */
export interface EvidenceBundle {
  readonly recordBytes: Uint8Array;
  readonly recordFile: RecordFile;
  /** Image bytes by CID (any CID spelling; files are named by canonical CIDv1). */
  readonly images: ReadonlyMap<string, Uint8Array>;
  readonly events: readonly ChainEvent[];
  readonly proof: EventProof;
  readonly anchor: AnchorFile;
}

/** Writes `bundle` as an export folder at `dir` (created if needed). */
export async function writeExport(dir: string, bundle: EvidenceBundle): Promise<void> {
  await mkdir(join(dir, 'images'), { recursive: true });
  const json = (name: string, value: unknown) => writeFile(join(dir, name), `${JSON.stringify(value, null, 2)}\n`);
  await json('export.json', { format: EXPORT_FORMAT, version: EXPORT_VERSION });
  await writeFile(join(dir, 'record.cbor'), bundle.recordBytes);
  await json('record.json', bundle.recordFile);
  for (const [cid, bytes] of bundle.images) await writeFile(imagePath(dir, cid), bytes);
  await json('events.json', bundle.events);
  await json('proof.json', bundle.proof);
  await json('anchor.json', bundle.anchor);
}

/** Path of an image file; the name is the canonical CID, so it cannot escape `images/`. */
export function imagePath(dir: string, cid: string): string {
  return join(dir, 'images', canonicalCid(cid));
}

/** A file's parsed content, or why it could not be read. */
export type Loaded<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/** The parts of an export folder, each loaded independently. */
export interface LoadedExport {
  readonly manifest: Loaded<unknown>;
  readonly recordBytes: Loaded<Uint8Array>;
  readonly recordFile: Loaded<RecordFile>;
  readonly events: Loaded<ChainEvent[]>;
  readonly proof: Loaded<EventProof>;
  readonly anchor: Loaded<AnchorFile>;
}

/** Reads the export at `dir`; missing or unparsable files come back as `{ok: false}`. */
export async function readExport(dir: string): Promise<LoadedExport> {
  return {
    manifest: await readJson(dir, 'export.json', isManifest),
    recordBytes: await load(dir, 'record.cbor', async (p) => new Uint8Array(await readFile(p))),
    recordFile: await readJson(
      dir,
      'record.json',
      (v): v is RecordFile => isObject(v) && typeof v.cid === 'string' && typeof v.hash === 'string',
    ),
    events: await readJson(dir, 'events.json', (v): v is ChainEvent[] => Array.isArray(v) && v.every(isObject)),
    proof: await readJson(
      dir,
      'proof.json',
      (v): v is EventProof => isObject(v) && Array.isArray(v.path) && typeof v.root_hex === 'string',
    ),
    anchor: await readJson(dir, 'anchor.json', isAnchorFile),
  };
}

function isManifest(v: unknown): v is unknown {
  return isObject(v) && v.format === EXPORT_FORMAT && v.version === EXPORT_VERSION;
}

function isAnchorFile(v: unknown): v is AnchorFile {
  if (!isObject(v)) return false;
  if (v.backend === 'local') return isObject(v.checkpoint) && typeof v.public_key === 'string';
  return v.backend === 'cardano' && typeof v.tx_hash === 'string' && typeof v.tx_cbor_hex === 'string';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

async function readJson<T>(dir: string, name: string, guard: (v: unknown) => v is T): Promise<Loaded<T>> {
  const text = await load(dir, name, (p) => readFile(p, 'utf8'));
  if (!text.ok) return text;
  try {
    const value: unknown = JSON.parse(text.value);
    return guard(value) ? { ok: true, value } : { ok: false, error: `${name} does not have the expected shape` };
  } catch (err) {
    return { ok: false, error: `${name} is not JSON: ${(err as Error).message}` };
  }
}

async function load<T>(dir: string, name: string, read: (path: string) => Promise<T>): Promise<Loaded<T>> {
  try {
    return { ok: true, value: await read(join(dir, name)) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, error: code === 'ENOENT' ? `${name} is missing` : `${name} cannot be read: ${(err as Error).message}` };
  }
}
