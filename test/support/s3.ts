import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export interface TestS3 {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  close(): Promise<void>;
}

/** A real S3-protocol server (s3rver, file-backed) on a free loopback port, for this test file only. */
export async function startS3(): Promise<TestS3> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'markless-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [] });
  const addr = (await server.run()) as { port: number };
  return {
    endpoint: `http://127.0.0.1:${addr.port}`,
    accessKey: 'S3RVER',
    secretKey: 'S3RVER',
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
