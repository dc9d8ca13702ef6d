import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { startS3, type TestS3 } from '../../../../test/support/s3.js';
import { uniqueName } from '../../../../test/support/postgres.js';
import { blobStoreConformance, type BlobStoreFactory } from '../../ports/conformance/blob-store.conformance.js';
import { createFsBlobStore } from './fs.adapter.js';
import { createS3BlobStore } from './s3.adapter.js';

let s3: TestS3 | undefined;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  await s3?.close();
});

const fs: BlobStoreFactory = async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'markless-blobs-'));
  return {
    open: () => createFsBlobStore(root),
    destroy: () => rm(root, { recursive: true, force: true }),
  };
};

// The bucket does not exist yet: the adapter must create it on first open.
const s3Bucket: BlobStoreFactory = async () => {
  const bucket = uniqueName('conf-');
  return {
    open: () =>
      createS3BlobStore({ endpoint: s3!.endpoint, accessKey: s3!.accessKey, secretKey: s3!.secretKey, bucket, region: 'us-east-1' }),
    // s3rver keeps its buckets in a temp folder that goes with the server.
    destroy: async () => undefined,
  };
};

describe.each([
  { name: 'filesystem (temp folder)', factory: fs },
  { name: 'S3 (s3rver, minio client)', factory: s3Bucket },
])('BlobStore conformance: $name', ({ factory }) => {
  blobStoreConformance(factory);
});
