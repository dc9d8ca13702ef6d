import type { Readable } from 'node:stream';
import * as Minio from 'minio';
import { assertBlobKey, type BlobStore } from '../../ports/blob-store.port.js';

export interface S3Options {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
}

const isMissing = (e: unknown) => {
  const code = (e as { code?: string }).code;
  return code === 'NoSuchKey' || code === 'NotFound' || code === 'NoSuchObject';
};

async function drain(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Blobs in one S3 bucket through the minio client; the bucket is created when missing. */
export async function createS3BlobStore(o: S3Options): Promise<BlobStore> {
  const url = new URL(o.endpoint);
  const client = new Minio.Client({
    endPoint: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    useSSL: url.protocol === 'https:',
    accessKey: o.accessKey,
    secretKey: o.secretKey,
    region: o.region,
    pathStyle: true,
  });
  if (!(await client.bucketExists(o.bucket))) {
    await client.makeBucket(o.bucket, o.region).catch((e: { code?: string }) => {
      // Another process may have created it between the check and here.
      if (e.code !== 'BucketAlreadyOwnedByYou' && e.code !== 'BucketAlreadyExists') throw e;
    });
  }
  const stat = async (key: string) => {
    assertBlobKey(key);
    try {
      const s = await client.statObject(o.bucket, key);
      return { size: s.size, contentType: s.metaData?.['content-type'] as string | undefined };
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  };
  const stream = async (key: string) => {
    assertBlobKey(key);
    try {
      return await client.getObject(o.bucket, key);
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  };
  return {
    kind: 's3',
    async put(key, bytes, meta = {}) {
      if (await stat(key)) return { created: false };
      const headers = meta.contentType ? { 'Content-Type': meta.contentType } : {};
      await client.putObject(o.bucket, key, Buffer.from(bytes), bytes.byteLength, headers);
      return { created: true };
    },
    async get(key) {
      const s = await stream(key);
      return s ? drain(s) : null;
    },
    stream,
    has: async (key) => (await stat(key)) !== null,
    stat,
    async delete(key) {
      assertBlobKey(key);
      await client.removeObject(o.bucket, key);
    },
  };
}
