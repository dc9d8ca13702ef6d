import type { Readable } from 'node:stream';

/**
 * Content-addressed blob storage. Keys are CIDs computed by the caller, so a key always names
 * the same bytes: `put` of an existing key is a no-op, and nothing is ever overwritten.
 * Adapters: a folder on disk (embedded) and an S3 bucket through the minio client (distributed).
 *
 * `delete` exists only so a failed request can remove a blob it wrote and nothing references
 * (no orphaned blobs); the service never deletes a referenced blob.
 */
export interface BlobStore {
  /** Store bytes under `key` unless already present. Returns whether it was newly written. */
  put(key: string, bytes: Uint8Array, meta?: BlobMeta): Promise<{ created: boolean }>;
  /** The whole blob, or null when absent. */
  get(key: string): Promise<Buffer | null>;
  /** A stream of the blob, or null when absent; for large videos. */
  stream(key: string): Promise<Readable | null>;
  has(key: string): Promise<boolean>;
  /** Size and content type, or null when absent. */
  stat(key: string): Promise<(BlobMeta & { size: number }) | null>;
  delete(key: string): Promise<void>;
  readonly kind: 'fs' | 's3';
}

export interface BlobMeta {
  contentType?: string;
}

/**
 * Keys are CIDs: letters, digits, `.`, `_` and `-`, 1 to 200 characters, not starting or ending
 * with a dot. So a key is always one safe file name (never `..`, never a path) and means the
 * same thing in every adapter.
 */
export const BLOB_KEY = /^[A-Za-z0-9_-](?:[A-Za-z0-9._-]{0,198}[A-Za-z0-9_-])?$/;

/** Throw for a key outside `BLOB_KEY`; every adapter checks before touching storage. */
export function assertBlobKey(key: string): void {
  if (typeof key !== 'string' || !BLOB_KEY.test(key)) throw new Error(`invalid blob key: ${JSON.stringify(String(key)).slice(0, 80)}`);
}
