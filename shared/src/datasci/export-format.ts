import { z } from 'zod';
import { csvRow } from '../csv/csv.js';

/**
 * The labelled-data export, as data scientists read it (docs/data-science.md).
 *
 * One row per photo. `split` says where it comes from: `gallery` (an enrolled photo; `identity`
 * is its individual) or `query` (a photo sent to identify; `identity` is what the owner's
 * identify_verdict label says it shows, empty when the label says "not enrolled" or does not
 * name one). `identity` and `path` are the WildlifeDatasets custom-dataset columns; the rest
 * are ours. Candidates and model versions are JSON inside the CSV and plain arrays in JSONL.
 */

/** One candidate of an identify answer, as stored with the query. */
export interface ExportCandidate {
  individual_id: string;
  probability: number;
}

export interface ExportRow {
  identity: string;
  path: string;
  split: 'gallery' | 'query';
  owner_id: string;
  individual_id: string;
  kind: string;
  species: string;
  farm_id: string;
  name: string;
  photo_cid: string;
  /** When the photo reached the service (uploads carry no trusted capture clock). */
  captured_at: string;
  image_id: string;
  query_id: string;
  /** The service's answer: match | uncertain | no_match (queries only). */
  answer_verdict: string;
  answer_top1: string;
  /** The owner's identify_verdict label: correct | wrong | other | unknown_ok, empty when unlabelled. */
  label: string;
  label_individual_id: string;
  candidates: ExportCandidate[];
  /** Engine identity that produced the descriptor or the answer (`name@version`). */
  model: string;
  /** Every registry model behind it (`[{name, version}]`). */
  model_versions: { name: string; version: string }[];
}

export const EXPORT_COLUMNS: (keyof ExportRow)[] = [
  'identity',
  'path',
  'split',
  'owner_id',
  'individual_id',
  'kind',
  'species',
  'farm_id',
  'name',
  'photo_cid',
  'captured_at',
  'image_id',
  'query_id',
  'answer_verdict',
  'answer_top1',
  'label',
  'label_individual_id',
  'candidates',
  'model',
  'model_versions',
];

// The one CSV writer (formula guard and quoting); see shared/src/csv/csv.ts.
export const csvHeader = (): string => csvRow(EXPORT_COLUMNS);
export const csvLine = (r: ExportRow): string => csvRow(EXPORT_COLUMNS.map((k) => r[k]));

/** The file name a photo gets under `images/`: its CID plus an extension from its media type. */
export function imagePath(cid: string, contentType: string | null): string {
  const ext = contentType === 'image/png' ? 'png' : contentType === 'image/webp' ? 'webp' : contentType === 'image/heic' ? 'heic' : 'jpg';
  return `images/${cid}.${ext}`;
}

/**
 * Who a labelled query photo shows. `correct`: the answer's top-1. `wrong`/`other` with a
 * corrected id: that id. `unknown_ok`, or a correction without an id: nobody we can name ('').
 */
export function labelIdentity(label: string | null, correctId: string | null, top1: string | null): string {
  if (label === 'correct') return top1 ?? '';
  if (label === 'wrong' || label === 'other') return correctId ?? '';
  return '';
}

/** Position in the export: which part (gallery first, then queries) and the last row's sort key. */
export interface ExportCursor {
  part: 'gallery' | 'query';
  at: string;
  id: string;
}

export const encodeCursor = (c: ExportCursor): string => Buffer.from(JSON.stringify(c)).toString('base64url');

/**
 * A Postgres `timestamptz::text` (or ISO) time with real calendar values: anything else would
 * reach the query and fail there (500) instead of being refused at the edge (400).
 */
const CursorTime = z
  .string()
  .max(40)
  .refine((t) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?(?:Z|[+-]\d{2}(?::?\d{2})?)$/.exec(t);
    if (!m) return false;
    const [y, mo, d, h, mi, se] = m.slice(1).map(Number) as [number, number, number, number, number, number];
    const day = new Date(Date.UTC(y, mo - 1, d));
    return (
      y >= 1970 && day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d && h < 24 && mi < 60 && se < 60
    );
  });
export const ExportCursorSchema = z.strictObject({ part: z.enum(['gallery', 'query']), at: CursorTime, id: z.uuid() });

/** @returns the cursor, or null when it is not one we wrote (not base64url JSON, or not the cursor's shape). */
export function decodeCursor(s: string): ExportCursor | null {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(s)) return null;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const r = ExportCursorSchema.safeParse(json);
  return r.success ? r.data : null;
}
