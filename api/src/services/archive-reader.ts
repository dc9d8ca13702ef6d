/**
 * Reads a .zip without trusting it. fflate's `unzipSync` once spun for 20 minutes on the event
 * loop over a 98-byte zip64 archive claiming 0xFFFFFFFF entries, and inflated an entry that
 * declared 1,000 bytes to 8 GB. Here yauzl reads the central directory one entry at a time and
 * inflates on zlib's thread pool, so the event loop keeps serving; the entry count is checked
 * against the cap and against what the archive's size can hold before any entry is read; and the
 * bytes really inflated (not the sizes declared) are counted against the per-entry, total and
 * ratio caps, the stream being destroyed the moment one is passed.
 */
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import type { Readable } from 'node:stream';
import { AppError } from '../../../shared/src/domain/errors.js';

export interface ArchiveLimits {
  maxEntries: number;
  /** Per entry: an entry declaring more fails its own row without being inflated. */
  maxEntryBytes: number;
  maxTotalBytes: number;
  maxRatio: number;
}

export interface ArchiveEntry {
  name: string;
  bytes?: Buffer;
  refused?: { reason_code: string; reason_params: Record<string, unknown> };
}

/** Small entries may compress well (a blank frame) and cost nothing: the ratio cap starts above this. */
const RATIO_FLOOR_BYTES = 1_000_000;
/** The smallest central-directory record: a claimed entry count the archive cannot hold is a lie. */
const MIN_CD_RECORD = 46;

/** Folders, macOS resource forks and hidden files are archive clutter, not photos. */
const isClutter = (name: string) => name.endsWith('/') || name.startsWith('__MACOSX/') || /(^|\/)\.[^./]/.test(name);

/** Why a name must not be used as a path, or null. Checked before clutter: `../x` is not a hidden file. */
export function unsafeEntryName(name: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'control_character';
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) return 'absolute_path';
  if (name.split('/').includes('..')) return 'parent_directory';
  if (Buffer.byteLength(name) > 1024) return 'too_long';
  return null;
}

/**
 * A file name safe to show in a row, a message and the results CSV: control characters replaced,
 * format characters (bidirectional overrides such as U+202E, zero-width marks) removed, so
 * `photo\u202Egpj.exe` cannot display as `photoexe.jpg`; length bounded.
 */
export const shownFileName = (name: string) =>
  [
    ...name
      .normalize('NFC')
      .replace(/\p{Cc}/gu, '?')
      .replace(/\p{Cf}/gu, ''),
  ]
    .slice(0, 255)
    .join('');

const invalid = (filename: string, reason: string) => new AppError(422, 'batch_archive_invalid', { field: 'archive', filename, reason });

function open(bytes: Buffer): Promise<ZipFile | null> {
  return new Promise((resolve) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false }, (err, zip) =>
      resolve(err || !zip ? null : zip),
    );
  });
}

function openStream(zip: ZipFile, entry: Entry): Promise<Readable | null> {
  return new Promise((resolve) => zip.openReadStream(entry, (err, s) => resolve(err || !s ? null : s)));
}

/**
 * The entries of `bytes`, in archive order, each with its inflated bytes or the reason its row is
 * refused. A hostile archive as a whole is an AppError: 413 over a cap, 422 when it lies.
 */
export async function readArchive(bytes: Buffer, filename: string, limits: ArchiveLimits): Promise<ArchiveEntry[]> {
  const zip = await open(bytes);
  if (!zip) throw invalid(filename, 'directory');
  const closeQuietly = () => {
    try {
      zip.close();
    } catch {
      /* already closed */
    }
  };
  if (zip.entryCount > limits.maxEntries) {
    closeQuietly();
    throw new AppError(413, 'archive_too_many_entries', { field: 'archive', filename, got: zip.entryCount, max: limits.maxEntries });
  }
  if (zip.entryCount * MIN_CD_RECORD > bytes.length) {
    closeQuietly();
    throw invalid(filename, 'entry_count');
  }
  const state = { total: 0 };
  try {
    return await entries(zip, filename, limits, state);
  } finally {
    closeQuietly();
  }
}

/** Reads entries one by one (lazyEntries), so at most one entry is being inflated at a time. */
function entries(zip: ZipFile, filename: string, limits: ArchiveLimits, state: { total: number }): Promise<ArchiveEntry[]> {
  return new Promise((resolve, reject) => {
    const out: ArchiveEntry[] = [];
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      reject(err instanceof AppError ? err : invalid(filename, 'entry'));
    };
    zip.on('error', () => fail(invalid(filename, 'directory')));
    zip.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(out);
    });
    zip.on('entry', (entry: Entry) => {
      readOne(zip, entry, filename, limits, state).then((e) => {
        if (settled) return;
        if (e) out.push(e);
        zip.readEntry();
      }, fail);
    });
    zip.readEntry();
  });
}

async function readOne(
  zip: ZipFile,
  entry: Entry,
  filename: string,
  limits: ArchiveLimits,
  state: { total: number },
): Promise<ArchiveEntry | null> {
  const raw = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileName as unknown as Buffer, entry.extraFields, false);
  const name = shownFileName(raw);
  const refuse = (reason_code: string, reason_params: Record<string, unknown>): ArchiveEntry => ({
    name,
    refused: { reason_code, reason_params: { filename: name, ...reason_params } },
  });
  const unsafe = unsafeEntryName(raw);
  if (unsafe) return refuse('archive_entry_unsafe_name', { reason: unsafe });
  if (isClutter(raw)) return null;
  const declared = entry.uncompressedSize;
  if (declared > limits.maxEntryBytes) return refuse('batch_file_too_large', { limit_mb: limits.maxEntryBytes / 1_000_000 });
  if (declared > RATIO_FLOOR_BYTES && declared > Math.max(entry.compressedSize, 1) * limits.maxRatio) {
    throw new AppError(413, 'archive_ratio_too_high', { field: 'archive', filename, entry: name, max: limits.maxRatio });
  }
  if (state.total + declared > limits.maxTotalBytes) {
    throw new AppError(413, 'archive_inflated_too_large', {
      field: 'archive',
      filename,
      limit_mb: Math.round(limits.maxTotalBytes / 1_000_000),
    });
  }
  if (entry.isEncrypted() || (entry.compressionMethod !== 0 && entry.compressionMethod !== 8))
    return refuse('archive_entry_unreadable', {});
  const stream = await openStream(zip, entry);
  if (!stream) return refuse('archive_entry_unreadable', {});
  const bytes = await inflate(stream, entry, name, filename, limits, state);
  return bytes ? { name, bytes } : refuse('archive_entry_unreadable', {});
}

/** Collect one entry's bytes, counting what really comes out; null when its deflate data is damaged. */
function inflate(
  stream: Readable,
  entry: Entry,
  name: string,
  filename: string,
  limits: ArchiveLimits,
  state: { total: number },
): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let got = 0;
    let done = false;
    const stop = (err: AppError | null) => {
      if (done) return;
      done = true;
      stream.destroy();
      if (err) reject(err);
      else resolve(null);
    };
    stream.on('data', (chunk: Buffer) => {
      got += chunk.length;
      state.total += chunk.length;
      // yauzl checks the declared size too; counting here keeps every cap independent of it.
      if (got > entry.uncompressedSize)
        return stop(new AppError(422, 'archive_entry_size_mismatch', { field: 'archive', filename, entry: name }));
      if (got > limits.maxEntryBytes || state.total > limits.maxTotalBytes) {
        return stop(
          new AppError(413, 'archive_inflated_too_large', {
            field: 'archive',
            filename,
            limit_mb: Math.round(limits.maxTotalBytes / 1_000_000),
          }),
        );
      }
      if (got > RATIO_FLOOR_BYTES && got > Math.max(entry.compressedSize, 1) * limits.maxRatio) {
        return stop(new AppError(413, 'archive_ratio_too_high', { field: 'archive', filename, entry: name, max: limits.maxRatio }));
      }
      chunks.push(chunk);
    });
    stream.on('error', (err: Error) => {
      // yauzl's size validation ("too many/few bytes in the stream") means the archive lied.
      if (/bytes in the stream/.test(err.message))
        return stop(new AppError(422, 'archive_entry_size_mismatch', { field: 'archive', filename, entry: name }));
      stop(null);
    });
    stream.on('end', () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks, got));
    });
  });
}
