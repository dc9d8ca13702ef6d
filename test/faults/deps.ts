import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { freePort, until } from '../support/process.js';

/**
 * Dependencies this test file owns and may stop: its own redis-server, its own PostgreSQL
 * cluster and its own S3 server, each on a free port. The machine's shared PostgreSQL (5432) and
 * Redis (6379) are never touched.
 */

const tcpUp = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = new net.Socket();
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
    s.connect(port, '127.0.0.1');
  });

export interface OwnRedis {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** redis-server with an fsync-always append-only file, so a restart keeps every queued job. */
export async function ownRedis(): Promise<OwnRedis> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-fault-redis-'));
  const port = await freePort();
  let proc: ChildProcess | null = null;
  const start = async () => {
    proc = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', ''],
      { stdio: 'ignore' },
    );
    await until(() => tcpUp(port), 20_000, 50);
  };
  const stop = async () => {
    const p = proc;
    if (!p) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM');
    await exited;
    proc = null;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    destroy: async () => (await stop(), await rm(dir, { recursive: true, force: true })),
  };
}

export interface OwnPostgres {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

const pgBin = () => {
  const base = '/usr/lib/postgresql';
  const v = readdirSync(base).sort().at(-1)!;
  return (b: string) => path.join(base, v, 'bin', b);
};

/** A throwaway PostgreSQL cluster (initdb + pg_ctl, run as the `postgres` user when we are root). */
export async function ownPostgres(): Promise<OwnPostgres> {
  const bin = pgBin();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-fault-pg-'));
  const data = path.join(dir, 'data');
  const port = await freePort();
  const asPg = process.getuid?.() === 0;
  if (asPg) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chmodSync(dir, 0o755);
    mkdirSync(data);
    chownSync(dir, uid, gid);
    chownSync(data, uid, gid);
  }
  const run = (b: string, args: string[]) =>
    execFileSync(asPg ? 'setpriv' : bin(b), asPg ? ['--reuid=postgres', '--regid=postgres', '--clear-groups', bin(b), ...args] : args, {
      stdio: 'pipe',
    });
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const opts = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir} -c fsync=off -c max_connections=60`;
  const start = async () => {
    run('pg_ctl', ['-D', data, '-o', opts, '-l', path.join(dir, 'log'), '-w', '-t', '120', 'start']);
    await until(() => tcpUp(port), 30_000, 100);
  };
  const stop = async () => {
    if (existsSync(path.join(data, 'postmaster.pid'))) run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    destroy: async () => (await stop(), await rm(dir, { recursive: true, force: true })),
  };
}

export interface OwnS3 {
  endpoint: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** s3rver on a fixed port and folder, so stopping and starting it keeps every object. */
export async function ownS3(): Promise<OwnS3> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'markless-fault-s3-'));
  const port = await freePort();
  let server: S3rver | null = null;
  const start = async () => {
    server = new S3rver({ port, address: '127.0.0.1', silent: true, directory, configureBuckets: [] });
    await server.run();
  };
  const stop = async () => {
    await server?.close();
    server = null;
  };
  await start();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    start,
    stop,
    destroy: async () => (await stop(), await rm(directory, { recursive: true, force: true })),
  };
}
