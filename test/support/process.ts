import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A free loopback port, for a service started as a child process. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export interface Child {
  proc: ChildProcess;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  exited: Promise<number | string>;
  output: () => string;
}

/** Run one of our entry points (e.g. `api/src/main.ts`) as a real separate process. */
export function spawnEntry(entry: string, env: Record<string, string>): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, entry)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | string>((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { proc, exited, output: () => out };
}

/** Poll until `fn` returns a truthy value, or fail after `ms`. */
export async function until<T>(fn: () => Promise<T | undefined | null | false>, ms = 30_000, every = 50): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, every));
  }
}
