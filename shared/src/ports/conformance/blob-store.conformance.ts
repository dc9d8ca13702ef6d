import { createHash, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../blob-store.port.js';

/** One place where blobs live (a folder, a bucket), opened as often as the suite asks. */
export interface BlobStoreLocation {
  /** A new store object on the same bytes, as a restarted process would open it. */
  open(): Promise<BlobStore>;
  /** Remove the location and whatever is left in it. */
  destroy(): Promise<void>;
}

/** What the conformance suite needs from an adapter: a fresh, empty location. */
export type BlobStoreFactory = () => Promise<BlobStoreLocation>;

/** A key shaped like the CIDs the service uses, unique to this call. */
const newKey = () => `bafkrei${randomBytes(20).toString('hex')}`;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function drain(s: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}

/**
 * The behaviour every `BlobStore` adapter must share: content-addressed, write-once blobs with
 * their content type. Call inside a `describe` for one adapter.
 */
export function blobStoreConformance(factory: BlobStoreFactory): void {
  let location: BlobStoreLocation;
  let store: BlobStore;

  beforeAll(async () => {
    location = await factory();
    store = await location.open();
  });

  afterAll(async () => {
    await location?.destroy();
  });

  describe('reading and writing', () => {
    it('puts a blob, then get/has/stat/stream all see it', async () => {
      const key = newKey();
      const bytes = new TextEncoder().encode('bark texture, tree 17');
      expect(await store.put(key, bytes, { contentType: 'image/jpeg' })).toEqual({ created: true });
      expect(await store.has(key)).toBe(true);
      const got = await store.get(key);
      expect(Buffer.isBuffer(got)).toBe(true);
      expect(got!.equals(Buffer.from(bytes))).toBe(true);
      expect(await store.stat(key)).toEqual({ size: bytes.byteLength, contentType: 'image/jpeg' });
      const s = await store.stream(key);
      expect(s).not.toBeNull();
      expect((await drain(s!)).equals(Buffer.from(bytes))).toBe(true);
    });

    it('keeps the first bytes and content type when the same key is put again', async () => {
      const key = newKey();
      const first = Buffer.from('first bytes');
      await store.put(key, first, { contentType: 'video/mp4' });
      expect(await store.put(key, Buffer.from('other, longer bytes'), { contentType: 'text/plain' })).toEqual({ created: false });
      expect((await store.get(key))!.equals(first)).toBe(true);
      expect(await store.stat(key)).toEqual({ size: first.length, contentType: 'video/mp4' });
    });

    it('stores a blob given without a content type', async () => {
      const key = newKey();
      expect(await store.put(key, Buffer.from([0, 1, 2, 255]))).toEqual({ created: true });
      expect((await store.get(key))!.equals(Buffer.from([0, 1, 2, 255]))).toBe(true);
      expect((await store.stat(key))?.size).toBe(4);
    });

    it('answers null/false for a key never written', async () => {
      const key = newKey();
      expect(await store.get(key)).toBeNull();
      expect(await store.stream(key)).toBeNull();
      expect(await store.stat(key)).toBeNull();
      expect(await store.has(key)).toBe(false);
    });

    it('deletes a blob; deleting a missing one is a no-op; the key can be written again', async () => {
      const key = newKey();
      await store.put(key, Buffer.from('orphan'), { contentType: 'image/png' });
      await store.delete(key);
      expect(await store.has(key)).toBe(false);
      expect(await store.get(key)).toBeNull();
      expect(await store.stat(key)).toBeNull();
      await expect(store.delete(key)).resolves.toBeUndefined();
      await expect(store.delete(newKey())).resolves.toBeUndefined();
      expect(await store.put(key, Buffer.from('again'))).toEqual({ created: true });
      expect((await store.get(key))!.toString()).toBe('again');
    });

    it('round-trips a 5 MB blob byte for byte, whole and streamed', async () => {
      const key = newKey();
      const big = randomBytes(5 * 1024 * 1024 + 17);
      expect(await store.put(key, new Uint8Array(big.buffer, big.byteOffset, big.byteLength), { contentType: 'video/mp4' })).toEqual({
        created: true,
      });
      expect((await store.stat(key))?.size).toBe(big.length);
      const got = await store.get(key);
      expect(got!.length).toBe(big.length);
      expect(sha(got!)).toBe(sha(big));
      expect(sha(await drain((await store.stream(key))!))).toBe(sha(big));
    });
  });

  describe('keys', () => {
    // `ab..` would shard into `..` and land outside the store's folder; `..` names a directory.
    const invalid = ['', '.', '..', 'ab..', '.hidden', '../escape', 'a/b', 'with space', 'x'.repeat(201), 'nul\0byte', '..\\win'];

    it.each(invalid.map((k) => [JSON.stringify(k).slice(0, 40), k]))(
      'rejects the invalid key %s in every operation',
      async (_label, key) => {
        await expect(store.put(key, Buffer.from('x'))).rejects.toThrow(/invalid blob key/);
        await expect(store.get(key)).rejects.toThrow(/invalid blob key/);
        await expect(store.has(key)).rejects.toThrow(/invalid blob key/);
        await expect(store.stat(key)).rejects.toThrow(/invalid blob key/);
        await expect(store.stream(key)).rejects.toThrow(/invalid blob key/);
        await expect(store.delete(key)).rejects.toThrow(/invalid blob key/);
      },
    );

    it('keeps keys that differ only in case apart', async () => {
      const base = newKey();
      const lower = `${base}k`;
      const upper = `${base}K`;
      await store.put(lower, Buffer.from('lower'));
      await store.put(upper, Buffer.from('upper'));
      expect((await store.get(lower))!.toString()).toBe('lower');
      expect((await store.get(upper))!.toString()).toBe('upper');
    });
  });

  describe('durability', () => {
    it('keeps bytes and content type when the store object is created again', async () => {
      const key = newKey();
      const bytes = randomBytes(4096);
      await store.put(key, bytes, { contentType: 'image/webp' });
      const again = await location.open();
      expect(again.kind).toBe(store.kind);
      expect(sha((await again.get(key))!)).toBe(sha(bytes));
      expect(await again.stat(key)).toEqual({ size: bytes.length, contentType: 'image/webp' });
      expect(await again.put(key, bytes)).toEqual({ created: false });
    });
  });
}
