/**
 * What the attack sweep watches besides answers: the stored state (every table's row count and
 * the blob store's objects with their sizes, read through the test's own connections) and the
 * latency of `/api/health`, probed alongside the sweep.
 */
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import * as Minio from 'minio';
import pg from 'pg';
import type { SweepService } from './service.js';

export interface StateReader {
  rows(sql: string, params?: unknown[]): Promise<any[]>;
  /** Row count of every table of the public schema. */
  counts(): Promise<Record<string, number>>;
  /** Every stored blob object as "key:size". */
  blobs(): Promise<string[]>;
  close(): Promise<void>;
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(p)));
    else out.push(`${e.name}:${(await stat(p)).size}`);
  }
  return out;
}

/**
 * Embedded: PGlite lives inside the app's process, so its own handle is the only way in; blobs
 * are files under DATA_DIR/blobs. Distributed: a separate pg connection and a separate S3 client.
 */
export async function stateReader(app: SweepService): Promise<StateReader> {
  let rows: StateReader['rows'];
  let close = async () => {};
  if (app.mode === 'distributed') {
    const client = new pg.Client({ connectionString: app.env.DATABASE_URL });
    await client.connect();
    rows = async (sql, params) => (await client.query(sql, params as any[])).rows;
    close = () => client.end();
  } else {
    const db = app.container!.db;
    rows = async (sql, params) => (await db.query<any>(sql, params as any[])).rows;
  }
  let blobs: StateReader['blobs'];
  if (app.mode === 'distributed') {
    const url = new URL(app.env.S3_ENDPOINT!);
    const s3 = new Minio.Client({
      endPoint: url.hostname,
      port: Number(url.port),
      useSSL: false,
      accessKey: app.env.S3_ACCESS_KEY!,
      secretKey: app.env.S3_SECRET_KEY!,
      region: 'us-east-1',
      pathStyle: true,
    });
    blobs = async () => {
      const out: string[] = [];
      for await (const o of s3.listObjectsV2(app.env.S3_BUCKET!, '', true)) out.push(`${o.name}:${o.size}`);
      return out.sort();
    };
  } else {
    blobs = async () => (await walk(path.join(app.env.DATA_DIR!, 'blobs'))).sort();
  }
  return {
    rows,
    blobs,
    close,
    async counts() {
      const tables = await rows(
        `select table_name as t from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
      );
      const out: Record<string, number> = {};
      for (const { t } of tables) out[t] = Number((await rows(`select count(*)::int as n from "${t}"`))[0].n);
      return out;
    },
  };
}

export interface HealthProbe {
  /** Latencies (ms) of every probe less the API's CPU wait, and the failures (non-200 or no answer). */
  readonly samples: number[];
  /** The same probes' wall-clock latencies. */
  readonly walls: number[];
  readonly failures: string[];
  /** Probes over `ms`, each with the phase it fell in. */
  slow(ms: number): string[];
  /** Name the phase the next probes fall in (for the failure message). */
  phase(name: string): void;
  stop(): Promise<void>;
}

/**
 * Milliseconds the API's main thread (its event loop) has spent runnable but waiting for a CPU,
 * from Linux's /proc/<pid>/schedstat; 0 where that is not available. On a shared 2-core machine
 * the whole process can be kept off the CPU by other work: that time is the machine's, not the
 * service's, and is taken out of a probe's latency (and reported next to it).
 */
async function queuedMs(pid: number | undefined): Promise<number> {
  if (!pid) return 0;
  const text = await readFile(`/proc/${pid}/schedstat`, 'utf8').catch(() => '');
  const waited = Number(text.split(' ')[1]);
  return Number.isFinite(waited) ? waited / 1e6 : 0;
}

/**
 * Ask `/api/health` every `everyMs` until stopped; one probe at a time, each given 5 s before it
 * counts as unanswered. `pid`: the API's process, whose CPU wait is taken out of each latency.
 */
export function probeHealth(url: string, inFlight: Set<string>, pid?: number, everyMs = 200): HealthProbe {
  const samples: number[] = [];
  const walls: number[] = [];
  const phases: string[] = [];
  const failures: string[] = [];
  let phase = 'start';
  let running = true;
  let wake: (() => void) | null = null;
  const loop = (async () => {
    while (running) {
      const q0 = await queuedMs(pid);
      const t0 = performance.now();
      const during = [...inFlight].map((x) => x.slice(0, 160)).join(' | ');
      try {
        const r = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(5000) });
        await r.arrayBuffer();
        if (r.status !== 200) failures.push(`status ${r.status} during ${phase}`);
      } catch (e) {
        failures.push(`${(e as Error).name} during ${phase}`);
      }
      const wall = performance.now() - t0;
      const queued = Math.min(wall, (await queuedMs(pid)) - q0);
      samples.push(wall - queued);
      walls.push(wall);
      phases.push(
        `${phase} (${Math.round(wall)} ms wall, ${Math.round(queued)} ms waiting for a CPU)${during ? `, in flight: ${during}` : ''}`,
      );
      // The probe interval, cut short by stop(): a pacing delay, not a wait for readiness.
      await new Promise<void>((res) => {
        wake = res;
        setTimeout(res, everyMs);
      });
    }
  })();
  return {
    samples,
    walls,
    failures,
    slow: (ms) => samples.flatMap((x, i) => (x > ms ? [`${Math.round(x)} ms during ${phases[i]}`] : [])),
    phase: (name) => void (phase = name),
    async stop() {
      running = false;
      wake?.();
      await loop;
    },
  };
}
