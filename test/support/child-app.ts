import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, spawnEntry, until, type Child } from './process.js';
import { modeEnv, type Mode } from './app.js';

/** The API as a separate process, so a test can tell "answered 4xx" from "answered, then died". */
export interface ChildApp {
  url: string;
  child: Child;
  env: Record<string, string>;
  /** True while the process started by this helper has not exited. */
  alive(): boolean;
  stop(): Promise<void>;
}

/**
 * Start `api/src/main.ts` in `mode` as a child process and wait until `/api/health` answers.
 * Distributed: a fresh PostgreSQL database, unique Redis queue names, an s3rver bucket.
 */
export async function startChildApp(mode: Mode, extra: Record<string, string> = {}): Promise<ChildApp> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'markless-child-'));
  const port = await freePort();
  const { env, release } = await modeEnv(
    mode,
    { MODE: mode, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', COMMIT: 'test', LEARN_AFTER_NEW: '0' },
    extra,
  );
  const child = spawnEntry('api/src/main.ts', env);
  const url = `http://127.0.0.1:${port}`;
  const exited = child.exited.then(() => true);
  let gone = false;
  void exited.then(() => (gone = true));
  await until(
    async () => {
      if (gone) throw new Error(`the API exited while starting:\n${child.output()}`);
      return (await fetch(`${url}/api/health`)).ok;
    },
    90_000,
    200,
  ).catch((e) => {
    if (gone) throw new Error(`the API exited while starting:\n${child.output()}`);
    throw e;
  });
  return {
    url,
    child,
    env,
    alive: () => !gone && child.proc.exitCode === null && child.proc.signalCode === null,
    async stop() {
      if (!gone) {
        child.proc.kill('SIGTERM');
        await child.exited;
      }
      await release();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
