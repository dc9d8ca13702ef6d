/**
 * The labelled-data export, as data scientists read it (README, "For data scientists").
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
  'identity', 'path', 'split', 'owner_id', 'individual_id', 'kind', 'species', 'farm_id', 'name', 'photo_cid', 'captured_at',
  'image_id', 'query_id', 'answer_verdict', 'answer_top1', 'label', 'label_individual_id', 'candidates', 'model', 'model_versions',
];

const csvCell = (v: unknown): string => {
  const s = typeof v === 'string' ? v : JSON.stringify(v ?? '');
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export const csvHeader = (): string => EXPORT_COLUMNS.join(',') + '\n';
export const csvLine = (r: ExportRow): string => EXPORT_COLUMNS.map((k) => csvCell(r[k])).join(',') + '\n';

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

/** @returns the cursor, or null when it is not one we wrote. */
export function decodeCursor(s: string): ExportCursor | null {
  try {
    const c = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as ExportCursor;
    const uuid = /^[0-9a-f-]{36}$/i;
    if ((c.part === 'gallery' || c.part === 'query') && typeof c.at === 'string' && !Number.isNaN(Date.parse(c.at)) && uuid.test(c.id)) return c;
  } catch {
    /* not base64 JSON */
  }
  return null;
}
