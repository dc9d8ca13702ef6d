import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { assertBlobKey, type BlobMeta, type BlobStore } from '../../ports/blob-store.port.js';

/**
 * Blobs as files under `root/<2-char shard>/<key>`. Writes go to a temp file then rename, so
 * a crash never leaves a half-written blob under a valid content address.
 */
export async function createFsBlobStore(root: string): Promise<BlobStore> {
  await mkdir(root, { recursive: true });
  const file = (key: string) => {
    assertBlobKey(key);
    return path.join(root, key.slice(-2), key);
  };
  const metaFile = (key: string) => `${file(key)}.meta.json`;
  const exists = async (p: string) =>
    stat(p).then(
      () => true,
      () => false,
    );

  return {
    kind: 'fs',
    async put(key, bytes, meta: BlobMeta = {}) {
      const target = file(key);
      if (await exists(target)) return { created: false };
      await mkdir(path.dirname(target), { recursive: true });
      const tmp = `${target}.${randomUUID()}.tmp`;
      await writeFile(tmp, bytes);
      if (meta.contentType) await writeFile(metaFile(key), JSON.stringify(meta));
      await rename(tmp, target);
      return { created: true };
    },
    async get(key) {
      return readFile(file(key)).catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT') return null;
        throw e;
      });
    },
    async stream(key) {
      return (await exists(file(key))) ? createReadStream(file(key)) : null;
    },
    has: async (key) => exists(file(key)),
    async stat(key) {
      const s = await stat(file(key)).catch(() => null);
      if (!s) return null;
      const meta = await readFile(metaFile(key), 'utf8').then(
        (t) => JSON.parse(t) as BlobMeta,
        () => ({}),
      );
      return { size: s.size, ...meta };
    },
    async delete(key) {
      await rm(file(key), { force: true });
      await rm(metaFile(key), { force: true });
    },
  };
}
