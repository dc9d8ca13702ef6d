/**
 * Issue 21: on the first distributed start the API and the worker create the anchoring key at
 * the same moment; the loser used to read the winner's half-written file and exit with
 * `DECODER routines::unsupported`. Several real processes and many concurrent calls start at once.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keyObjectToDidKey } from '../../evidence/did-key.js';
import { loadOrCreateKey } from './local.adapter.js';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

/** One process that waits for `go` (a file) to exist, then creates or loads the key and prints its did:key. */
const CREATOR = `
import { existsSync } from 'node:fs';
import { loadOrCreateKey } from './shared/src/adapters/anchor/local.adapter.ts';
import { keyObjectToDidKey } from './shared/src/evidence/did-key.ts';
const [file, go] = process.argv.slice(-2);
while (!existsSync(go)) await new Promise((r) => setTimeout(r, 2));
const keys = await Promise.all([0, 1, 2, 3].map(() => loadOrCreateKey(file)));
console.log(JSON.stringify(keys.map(keyObjectToDidKey)));
`;

function creator(file: string, go: string): Promise<{ code: number | null; out: string }> {
  const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CREATOR, '--', file, go], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (out += d));
  return new Promise((resolve) => p.on('exit', (code) => resolve({ code, out })));
}

describe('anchoring key creation is atomic', () => {
  it('many concurrent creators in one process all get the same, complete key', async () => {
    for (let round = 0; round < 5; round++) {
      const d = await mkdtemp(path.join(os.tmpdir(), 'markless-keyrace-'));
      dirs.push(d);
      const file = path.join(d, 'keys', 'anchor-key.pem');
      const keys = await Promise.all(Array.from({ length: 24 }, () => loadOrCreateKey(file)));
      expect(new Set(keys.map(keyObjectToDidKey)).size).toBe(1);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      // No temporary file is left beside the key.
      expect(await readdir(path.dirname(file))).toEqual(['anchor-key.pem']);
    }
  });

  it('separate processes started together (API and worker) agree on one key and none fails', async () => {
    const d = await mkdtemp(path.join(os.tmpdir(), 'markless-keyrace-'));
    dirs.push(d);
    const file = path.join(d, 'anchor-key.pem');
    const go = path.join(d, 'go');
    const runs = Array.from({ length: 4 }, () => creator(file, go));
    // Let the processes boot (tsx takes a while), then release them all at once.
    await new Promise((r) => setTimeout(r, 4000));
    await (await import('node:fs/promises')).writeFile(go, '');
    const results = await Promise.all(runs);
    for (const r of results) expect(r.code, r.out).toBe(0);
    const dids = new Set(results.flatMap((r) => JSON.parse(r.out.trim().split('\n').at(-1)!) as string[]));
    expect(dids.size).toBe(1);
    expect(await readFile(file, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n[\s\S]+-----END PRIVATE KEY-----\n$/);
    expect((await readdir(d)).sort()).toEqual(['anchor-key.pem', 'go']);
  }, 120_000);
});

describe('a loser never reads a half-written key', () => {
  it('waits for a creator that is still writing the file, and gets its whole key', async () => {
    const d = await mkdtemp(path.join(os.tmpdir(), 'markless-keyrace-'));
    dirs.push(d);
    const file = path.join(d, 'anchor-key.pem');
    const { generateCheckpointKey } = await import('../../evidence/index.js');
    const key = generateCheckpointKey().privateKey;
    const pem = key.export({ type: 'pkcs8', format: 'pem' }) as string;
    // A slow winner, as the old in-place creation was: the name exists, the key is half there.
    const { open } = await import('node:fs/promises');
    const h = await open(file, 'wx', 0o600);
    await h.write(pem.slice(0, 40));
    const loser = loadOrCreateKey(file);
    await new Promise((r) => setTimeout(r, 300));
    await h.write(pem.slice(40));
    await h.close();
    expect(keyObjectToDidKey(await loser)).toBe(keyObjectToDidKey(key));
  });

  it('gives up on a file that never becomes a key, with a sentence naming it', async () => {
    const d = await mkdtemp(path.join(os.tmpdir(), 'markless-keyrace-'));
    dirs.push(d);
    const file = path.join(d, 'anchor-key.pem');
    await (await import('node:fs/promises')).writeFile(file, 'not a key');
    await expect(loadOrCreateKey(file, 200)).rejects.toThrow(/anchor-key\.pem is not a complete PEM private key/);
  });
});
