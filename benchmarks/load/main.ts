/**
 * npm run bench:load — identify under load, on loopback only, bounded in time.
 *
 *   npm run bench:load -- [--modes embedded,d1,d2,d4] [--rates 1,2,4] [--step-s 12] [--gallery 6] [--wait-ms 8000]
 *
 * For each deployment (embedded; distributed with 1, 2 and 4 worker processes) it enrols a fixed
 * gallery, then offers identify requests at fixed rates (autocannon, open loop) for a bounded
 * step each. It records throughput (answers 200 per second), p50/p95/p99 latency, and how many
 * requests were answered 202 (the job outlived JOB_WAIT_MS: the knee). Results and SVG plots of
 * latency against offered load go to benchmarks/results/, with the machine and its load average.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { machineInfo, parseArgs, percentile } from '../machine.js';
import { photoForm, textureImage } from '../../test/support/images.js';
import { startStack, type Stack } from './stack.js';
import { lineChart } from './svg.js';

const args = parseArgs(process.argv.slice(2));
const MODES = (args.get('modes') ?? 'embedded,d1,d2,d4').split(',');
const RATES = (args.get('rates') ?? '1,2,4').split(',').map(Number);
const STEP_S = Number(args.get('step-s') ?? 12);
const GALLERY = Number(args.get('gallery') ?? 6);
const WAIT_MS = Number(args.get('wait-ms') ?? 8000);
const OUT = path.resolve(import.meta.dirname, '../results');

interface Step {
  offered_rps: number;
  sent: number;
  ok_200: number;
  accepted_202: number;
  other: number;
  throughput_rps: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  p95_ms_200_only: number;
  load_average_1m: number;
}

async function asBody(form: FormData) {
  const res = new Response(form);
  return { body: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type')! };
}

async function prepare(stack: Stack) {
  const username = `load_${Date.now().toString(36)}`;
  const s = await fetch(`${stack.url}/api/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: 'Bark-and-peel-42' }),
  });
  const token = ((await s.json()) as { token: string }).token;
  const auth = { authorization: `Bearer ${token}` };
  for (let i = 0; i < GALLERY; i++) {
    const photos = await Promise.all([0, 1].map((v) => textureImage(9000 + i * 10 + v, 384)));
    const r = await fetch(`${stack.url}/api/enroll`, {
      method: 'POST',
      headers: auth,
      body: photoForm(photos, { species: 'durian', farm_id: 'bench' }),
    });
    if (r.status !== 200 && r.status !== 202) throw new Error(`enrol failed: ${r.status} ${await r.text()}`);
    await r.arrayBuffer();
  }
  // The query: a photo of gallery individual 0, so each identify does the full match and verify.
  const query = await asBody(photoForm([await textureImage(9000, 384)]));
  return { headers: { ...auth, 'content-type': query.type }, body: query.body };
}

function runStep(url: string, req: { headers: Record<string, string>; body: Buffer }, rate: number): Promise<Step> {
  const times: number[] = [];
  const times200: number[] = [];
  const codes = { ok: 0, accepted: 0, other: 0 };
  return new Promise((resolve, reject) => {
    const inst = autocannon(
      {
        url: `${url}/api/identify`,
        method: 'POST',
        headers: req.headers,
        body: req.body,
        overallRate: rate,
        duration: STEP_S,
        // Enough connections that waiting requests never throttle the offered rate (open loop).
        connections: Math.min(64, Math.ceil(rate * (WAIT_MS / 1000 + 2))),
        timeout: Math.ceil(WAIT_MS / 1000) + 20,
      },
      (err) => {
        if (err) return reject(err);
        const sent = codes.ok + codes.accepted + codes.other;
        resolve({
          offered_rps: rate,
          sent,
          ok_200: codes.ok,
          accepted_202: codes.accepted,
          other: codes.other,
          throughput_rps: +(codes.ok / STEP_S).toFixed(3),
          p50_ms: Math.round(percentile(times, 50)),
          p95_ms: Math.round(percentile(times, 95)),
          p99_ms: Math.round(percentile(times, 99)),
          p95_ms_200_only: Math.round(percentile(times200, 95)),
          load_average_1m: +os.loadavg()[0]!.toFixed(1),
        });
      },
    );
    inst.on('response', (_c: unknown, status: number, _b: number, ms: number) => {
      times.push(ms);
      if (status === 200) {
        codes.ok++;
        times200.push(ms);
      } else if (status === 202) codes.accepted++;
      else codes.other++;
    });
  });
}

async function main() {
  if (args.has('report-only')) {
    const saved = JSON.parse(await readFile(path.join(OUT, 'load.json'), 'utf8'));
    return save(saved.runs, saved);
  }
  const env = {
    JOB_WAIT_MS: String(WAIT_MS),
    WORKER_CONCURRENCY: '1',
    RATE_LIMIT_PER_MIN: '1000000',
    // One account drives all the load: per-account fairness and quota would cap it, so both are off here.
    ACCOUNT_INFLIGHT_CAP: '0',
    ACCOUNT_QUEUED_QUOTA: '0',
  };
  const runs: { mode: string; steps: Step[]; knee_rps: number | null; max_throughput_rps: number }[] = [];
  for (const m of MODES) {
    const stack = m === 'embedded' ? await startStack('embedded', 0, env) : await startStack('distributed', Number(m.slice(1)), env);
    try {
      console.log(`\n${stack.label}: enrolling ${GALLERY} individuals (2 photos each)`);
      const req = await prepare(stack);
      // Warm-up, not recorded: the first identify of a process loads the owner's index.
      for (let i = 0; i < 2; i++)
        await (await fetch(`${stack.url}/api/identify`, { method: 'POST', headers: req.headers, body: req.body })).arrayBuffer();
      const steps: Step[] = [];
      for (const rate of RATES) {
        const s = await runStep(stack.url, req, rate);
        steps.push(s);
        console.log(
          `  offered ${rate}/s: ${s.throughput_rps}/s done (200), ${s.accepted_202} × 202, p50 ${s.p50_ms} ms, p95 ${s.p95_ms} ms, p99 ${s.p99_ms} ms, load ${s.load_average_1m}`,
        );
      }
      const knee = steps.find((s) => s.accepted_202 > 0)?.offered_rps ?? null;
      runs.push({ mode: stack.label, steps, knee_rps: knee, max_throughput_rps: Math.max(...steps.map((s) => s.throughput_rps)) });
    } finally {
      await stack.stop();
    }
  }
  await save(runs);
}

async function save(
  runs: { mode: string; steps: Step[]; knee_rps: number | null; max_throughput_rps: number }[],
  saved?: { ran_at: string; machine: { cores: number; load_average_1m_at_end: number } },
) {
  await mkdir(OUT, { recursive: true });
  const cores = saved?.machine.cores ?? os.cpus().length;
  const la = saved?.machine.load_average_1m_at_end ?? +os.loadavg()[0]!.toFixed(1);
  const note = `${cores} cores shared with other engineers; load average at end ${la}`;
  const result = saved ?? {
    benchmark: 'bench:load (identify, loopback)',
    ran_at: new Date().toISOString(),
    machine: machineInfo('cpu'),
    settings: {
      gallery_individuals: GALLERY,
      photos_per_individual: 2,
      step_s: STEP_S,
      rates: RATES,
      job_wait_ms: WAIT_MS,
      worker_concurrency: 1,
    },
    runs,
  };
  if (!saved) await writeFile(path.join(OUT, 'load.json'), JSON.stringify(result, null, 2) + '\n');
  for (const [key, label] of [
    ['p50_ms', 'p50'],
    ['p95_ms', 'p95'],
    ['p99_ms', 'p99'],
  ] as const) {
    await writeFile(
      path.join(OUT, `load-latency-${label}.svg`),
      lineChart({
        title: `identify ${label} latency vs offered load (gallery ${GALLERY})`,
        x: 'offered load (requests/s)',
        y: `${label} latency (ms)`,
        series: runs.map((r) => ({ name: r.mode, points: r.steps.map((s) => [s.offered_rps, s[key]] as [number, number]) })),
        note,
      }),
    );
  }
  await writeFile(
    path.join(OUT, 'load-throughput.svg'),
    lineChart({
      title: 'identify throughput (answers 200/s) vs offered load',
      x: 'offered load (requests/s)',
      y: 'completed within JOB_WAIT_MS (req/s)',
      series: runs.map((r) => ({ name: r.mode, points: r.steps.map((s) => [s.offered_rps, s.throughput_rps] as [number, number]) })),
      note,
    }),
  );
  await writeFile(path.join(OUT, 'load.md'), table(result.ran_at, note, runs));
  console.log(`\nsaved ${path.join(OUT, 'load.json')}, load.md and load-*.svg (${note})`);
}

function table(
  ranAt: string,
  note: string,
  runs: { mode: string; steps: Step[]; knee_rps: number | null; max_throughput_rps: number }[],
): string {
  const rows = runs.flatMap((r) =>
    r.steps.map(
      (s) =>
        `| ${r.mode} | ${s.offered_rps} | ${s.throughput_rps} | ${s.ok_200} | ${s.accepted_202} | ${s.other} | ${s.p50_ms} | ${s.p95_ms} | ${s.p99_ms} | ${s.load_average_1m} |`,
    ),
  );
  const summary = runs.map((r) => `| ${r.mode} | ${r.max_throughput_rps} | ${r.knee_rps ?? `none up to ${RATES.at(-1)}`} |`);
  return [
    `# bench:load — identify under load (${ranAt})`,
    '',
    `Gallery ${GALLERY} individuals × 2 photos, one account, one query photo; ${STEP_S} s per offered rate (autocannon, open loop, loopback);`,
    `JOB_WAIT_MS ${WAIT_MS}; worker concurrency 1 per process; fairness cap and quota off (one account drives all load). ${note}.`,
    'Latency counts every answer received within the step (200 and 202); throughput counts answers 200 per second.',
    '',
    '| deployment | max throughput (200/s) | knee: first offered rate with 202s |',
    '|---|---|---|',
    ...summary,
    '',
    '| deployment | offered/s | done/s | 200 | 202 | other | p50 ms | p95 ms | p99 ms | load 1m |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    'Plots: load-latency-p50.svg, load-latency-p95.svg, load-latency-p99.svg, load-throughput.svg.',
    '',
  ].join('\n');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
