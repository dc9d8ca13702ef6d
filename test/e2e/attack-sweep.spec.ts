/**
 * The standing attack sweep (issue 21): requests generated from the `/openapi.json` the app
 * serves, for every operation and both animal prefixes, sent as a stranger would. Asserts that
 * nothing answers 5xx (or drops the connection), that protected routes answer 401 without a token,
 * that "not yours" and "does not exist" are byte-identical, that no request without a token
 * changes stored rows or blobs, and that `/api/health` answers every probe throughout (how fast
 * is for a benchmark to measure, not a test).
 *
 * Seeded: SWEEP_SEED replays a run (the seed is printed with every failure). SWEEP_SCALE
 * multiplies the number of generated requests (default 1: about 900 requests per mode).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../shared/src/domain/limits.js';
import { signup, type Mode } from '../support/app.js';
import { operations, type FilePart, type Operation } from '../support/sweep/openapi.js';
import {
  hasSlot,
  inFlight,
  malformedBodyArb,
  streamedFiles,
  materialize,
  send,
  shapedFill,
  templateArb,
  victimFill,
  type Answer,
  type Built,
  type Template,
} from '../support/sweep/requests.js';
import { startSweepService, type SweepService } from '../support/sweep/service.js';
import { probeHealth, stateReader, type HealthProbe, type StateReader } from '../support/sweep/state.js';
import { createVictim, privateIds, tinyJpeg, type Victim } from '../support/sweep/victim.js';
import { listedNameAfterRestart, namesAndFields, ocrFlood, sessionsAndCookies } from '../support/sweep/round3.js';

const SEED = Number(process.env.SWEEP_SEED ?? 21_2026);
const SCALE = Math.max(1, Number(process.env.SWEEP_SCALE ?? 1));
const replay = `replay with SWEEP_SEED=${SEED}${SCALE > 1 ? ` SWEEP_SCALE=${SCALE}` : ''}`;

/**
 * Routes whose purpose is to store what a stranger sends: credentials (accounts, sessions, DID
 * challenges, the login throttle) and anonymous feedback (spec: "stores one line"). They are swept
 * on their own, and may write only these tables.
 */
const WRITERS = new Set(['/api/signup', '/api/login', '/api/auth/did/challenge', '/api/auth/did/verify', '/api/feedback']);
const WRITER_TABLES = new Set(['accounts', 'tokens', 'did_challenges', 'login_throttle', 'feedback', 'activity_events']);
/**
 * Rows a public route writes by design that hold nobody's data: the public fruit scan's
 * short-lived choice token, and the embedded queue's job records (in distributed mode they live
 * in Redis); neither names, changes or removes anything an owner stored.
 */
const PUBLIC_WRITES = new Set(['fruit_scan_tokens', 'jobs']);
/** Listed in ADMIN_USERS but never created by the operator: whoever signs up first must not become admin. */
const ADMIN_NAME = 'sweep_operator';
/** Ending the attacker's own session would turn every later request into a 401. */
const SESSION_ENDERS = new Set(['/api/logout', '/api/logout-all']);

/** A stable per-operation seed, so adding a route does not reshuffle the others' requests. */
const opSeed = (op: Operation, salt: number) => {
  let h = SEED ^ salt;
  for (const c of `${op.method} ${op.path}`) h = Math.imul(h ^ c.charCodeAt(0), 16_777_619) >>> 0;
  return h;
};
const sample = <T>(arb: fc.Arbitrary<T>, op: Operation, salt: number, n: number): T[] =>
  fc.sample(arb, { seed: opSeed(op, salt), numRuns: n * SCALE });
const mulberry = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
};

/** Run `fn` over `items`, `width` at a time. */
async function pool<T>(items: T[], width: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const broken = (a: Answer) => a.status === 0 || a.status >= 500;
const show = (b: Built, a: Answer) => `${a.status} ${b.describe} -> ${a.text.slice(0, 200)}`;

describe.each<Mode>(['embedded', 'distributed'])('attack sweep (%s)', (mode) => {
  let app: SweepService;
  let state: StateReader;
  let victim: Victim;
  let attacker: { token: string };
  let ops: Operation[];
  let files: FilePart[];
  let probe: HealthProbe;

  beforeAll(async () => {
    // Rate limits would turn the sweep into a test of the limiter; quotas stay as they are.
    app = await startSweepService(mode, {
      RATE_LIMIT_PER_MIN: '1000000',
      FRUIT_PUBLIC_PER_MIN: '1000000',
      SIGNUP_SOURCE_FAILURES: '1000000',
      ADMIN_USERS: ADMIN_NAME,
    });
    state = await stateReader(app);
    ops = operations(await (await fetch(`${app.url}/openapi.json`)).json());
    victim = await createVictim(app, (sql) => state.rows(sql));
    attacker = await signup(app.url, 'attacker');
    const jpeg = await tinyJpeg();
    const rnd = mulberry(SEED);
    files = [
      { name: 'tiny.jpg', type: 'image/jpeg', bytes: jpeg },
      { name: 'empty.jpg', type: 'image/jpeg', bytes: new Uint8Array(0) },
      { name: 'cut.jpg', type: 'image/jpeg', bytes: jpeg.subarray(0, jpeg.length >> 1) },
      { name: 'noise.bin', type: 'application/octet-stream', bytes: Uint8Array.from({ length: 512 }, () => Math.floor(rnd() * 256)) },
      { name: '../../x.jpg', type: 'image/jpeg', bytes: jpeg },
      // Copies of the victim's own photos: an attacker may hold them (a shared picture, a printed label).
      ...victim.photos.map((p) => ({ name: `copy-of-victim-${p.name}.jpg`, type: 'image/jpeg', bytes: p.bytes })),
    ];
    // Every 50 ms: on a quiet machine the whole sweep takes only a few seconds, and the probe
    // must still see it many times over (the count is checked below).
    probe = probeHealth(app.url, inFlight, app.pid, 50);
  }, 400_000);
  afterAll(async () => {
    await probe?.stop();
    await state?.close();
    await app?.stop();
  });

  it('without a token: nothing 5xx, protected routes 401, and no request changes stored rows or blobs', async () => {
    probe.phase('no token');
    const bad: string[] = [];
    const counts = await state.counts();
    const blobs = await state.blobs();
    const reqs: Array<{ b: Built; op: Operation; hostile?: boolean }> = [];
    for (const op of ops.filter((o) => !WRITERS.has(o.path))) {
      for (const t of sample(templateArb(op, files), op, 1, op.isPublic ? 6 : 2))
        reqs.push({ op, b: materialize(app.url, t, victimFill(victim)) });
      // Bad ids without a token too: the 401 (or public 4xx) must come before any parsing breaks.
      if (op.params.some((p) => p.in !== 'header'))
        for (const t of sample(templateArb(op, files, 'hostile'), op, 2, 1))
          reqs.push({ op, hostile: true, b: materialize(app.url, t, victimFill(victim)) });
    }
    const secrets = privateIds(victim);
    const leaks: string[] = [];
    const check = (b: Built, a: Answer, op: Operation, hostile?: boolean) => {
      // A private id in an answer to a request that did not carry it: the public surface tells it.
      for (const [what, id] of secrets)
        if (a.text.includes(id) && !b.url.includes(encodeURIComponent(id)) && !b.describe.includes(id))
          leaks.push(`the victim's ${what} in ${show(b, a)}`);
      // A hostile id that leaves no route to match (an empty segment) is the router's 404; a ".."
      // the client itself resolves sends the request to another route, which answers as that one.
      const moved = hostile && new URL(b.url).pathname.split('/').length !== op.path.split('/').length;
      const noRoute = moved || (hostile && a.status === 404 && a.text.includes('"route_not_found"'));
      if (broken(a) || (!op.isPublic && a.status !== 401 && !noRoute)) bad.push(show(b, a));
    };
    // Public writes one at a time, the blob store listed after each: a lost blob names its request.
    const publicWrites = reqs.filter((r) => r.op.isPublic && r.op.method !== 'GET');
    const blobEffects: string[] = [];
    let before = blobs;
    for (const { b, op, hostile } of publicWrites) {
      check(b, await send(b), op, hostile);
      const now = await state.blobs();
      const lost = before.filter((x) => !now.includes(x));
      if (lost.length) blobEffects.push(`${b.describe} removed ${lost.join(', ')}`);
      before = now;
    }
    await pool(
      reqs.filter((r) => !publicWrites.includes(r)),
      3,
      async ({ b, op, hostile }) => check(b, await send(b), op, hostile),
    );
    const countsAfter = await state.counts();
    const changed = Object.keys({ ...counts, ...countsAfter })
      .filter((t) => !PUBLIC_WRITES.has(t) && counts[t] !== countsAfter[t])
      .map((t) => `${t}: ${counts[t]} -> ${countsAfter[t]}`);
    const blobsAfter = await state.blobs();
    const gone = blobs.filter((x) => !blobsAfter.includes(x));
    const added = blobsAfter.filter((x) => !blobs.includes(x));
    // Soft: the writing routes below are still swept when this part fails.
    expect
      .soft({ requests: reqs.length, bad, leaks, changed, blobsGone: gone, blobsAdded: added, blobEffects }, replay)
      .toEqual({ requests: reqs.length, bad: [], leaks: [], changed: [], blobsGone: [], blobsAdded: [], blobEffects: [] });

    probe.phase('writing routes');
    // The writing routes: never a 5xx, and nothing written outside their own tables.
    const cred: Built[] = ops
      .filter((o) => WRITERS.has(o.path))
      .flatMap((op) => sample(templateArb(op, files), op, 3, 8).map((t) => materialize(app.url, t, victimFill(victim))));
    const credBad: string[] = [];
    await pool(cred, 3, async (b) => {
      const a = await send(b);
      if (broken(a)) credBad.push(show(b, a));
    });
    // A stranger who signs up under a name the operator listed in ADMIN_USERS gains nothing.
    const squatter = await send({
      method: 'POST',
      url: `${app.url}/api/signup`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: ADMIN_NAME, password: 'Bark-and-peel-42' }),
      describe: `POST /api/signup ${ADMIN_NAME}`,
    });
    if (squatter.status === 200) {
      const queues = await send(
        { method: 'GET', url: `${app.url}/api/admin/queues`, headers: {}, describe: 'GET /api/admin/queues' },
        JSON.parse(squatter.text).token,
      );
      if (queues.status !== 403)
        credBad.push(`signing up as ADMIN_USERS' ${ADMIN_NAME} made an admin: GET /api/admin/queues answered ${queues.status}`);
    }
    const countsWriters = await state.counts();
    const outside = Object.keys(countsWriters)
      .filter((t) => !WRITER_TABLES.has(t) && !PUBLIC_WRITES.has(t) && countsWriters[t] !== countsAfter[t])
      .map((t) => `${t}: ${countsAfter[t]} -> ${countsWriters[t]}`);
    expect({ bad: credBad, outside, blobs: await state.blobs() }, replay).toEqual({ bad: [], outside: [], blobs: blobsAfter });
  }, 180_000);

  it("with another account's token, the victim's ids answer byte for byte like random ids of the same shape", async () => {
    probe.phase('victim ids with another token');
    const bad: string[] = [];
    let pairs = 0;
    const rnd = mulberry(SEED + 1);
    for (const op of ops.filter((o) => !SESSION_ENDERS.has(o.path))) {
      const templates = sample(templateArb(op, files.slice(0, 1)), op, 4, 3).filter(hasSlot);
      for (const t of templates) {
        const theirs = materialize(app.url, t, victimFill(victim));
        const none = materialize(app.url, t, shapedFill(victim, rnd));
        const a = await send(theirs, attacker.token);
        const b = await send(none, attacker.token);
        pairs++;
        if (broken(a)) bad.push(show(theirs, a));
        if (broken(b)) bad.push(show(none, b));
        if (a.status !== b.status || a.text !== b.text) bad.push(`differs: ${show(theirs, a)}\n    vs ${show(none, b)}`);
        if (a.status >= 200 && a.status < 300 && !op.isPublic) bad.push(`answered the attacker: ${show(theirs, a)}`);
      }
    }
    expect(pairs).toBeGreaterThan(40);
    expect(bad, replay).toEqual([]);
  }, 180_000);

  it('malformed bodies, fields just over their limits, oversized small bodies and bad ids: a 4xx, never a 5xx', async () => {
    probe.phase('malformed');
    const bad: string[] = [];
    const reqs: Array<{ b: Built; small?: boolean }> = [];
    for (const op of ops.filter((o) => !SESSION_ENDERS.has(o.path))) {
      const fill = victimFill(victim);
      if (op.params.some((p) => p.in !== 'header'))
        for (const t of sample(templateArb(op, files, 'hostile'), op, 5, 3)) reqs.push({ b: materialize(app.url, t, fill) });
      // Paging cursors get more tries: a cursor that decodes but holds wrong values is its own attack.
      if (op.params.some((p) => p.name === 'cursor'))
        for (const t of sample(templateArb(op, files), op, 9, 24)) reqs.push({ b: materialize(app.url, t, fill) });
      if (!op.bodies.length) continue;
      for (const body of sample(malformedBodyArb(op), op, 6, 3)) {
        const [t] = sample(templateArb(op, files), op, 7, 1) as [Template];
        reqs.push({ b: materialize(app.url, { ...t, body }, fill) });
      }
      // One byte over the 1 MB cap of JSON and form bodies.
      const small = op.bodies.find((b) => b.type === 'application/json' || b.type === 'application/x-www-form-urlencoded');
      if (small) {
        const [t] = sample(templateArb(op, files), op, 8, 1) as [Template];
        const raw = small.type === 'application/json' ? `{"x":"${'a'.repeat(1_000_001 - 8)}"}` : `x=${'a'.repeat(1_000_001 - 2)}`;
        reqs.push({ small: true, b: materialize(app.url, { ...t, body: { type: small.type, raw } }, fill) });
      }
    }
    await pool(reqs, 3, async ({ b, small }) => {
      const a = await send(b, attacker.token);
      // Too big is 413; refused before the body was read (no rights, no such object) is fine too.
      if (broken(a) || (small && ![413, 401, 403, 404].includes(a.status))) bad.push(show(b, a));
    });
    expect(reqs.length).toBeGreaterThan(200);
    expect(bad, replay).toEqual([]);
  }, 180_000);

  it('one file just over 20 MB and a photo batch just over 64 MB are refused with 413', async () => {
    probe.phase('20 MB / 64 MB');
    const single = streamedFiles([{ field: 'photo', name: 'big.jpg', size: LIMITS.fileBytes + 1 }]);
    const one = await send(
      {
        method: 'POST',
        url: `${app.url}/api/care/match`,
        headers: { 'content-type': single.type },
        body: single.body,
        describe: 'POST /api/care/match (20 MB + 1)',
      },
      attacker.token,
    );
    expect(one.status, one.text).toBe(413);
    const part = Math.ceil(LIMITS.imageBatchBytes / 4) + 1;
    const batch = streamedFiles(Array.from({ length: 4 }, (_, i) => ({ field: 'files', name: `p${i}.jpg`, size: part })));
    const many = await send(
      {
        method: 'POST',
        url: `${app.url}/api/enroll`,
        headers: { 'content-type': batch.type },
        body: batch.body,
        describe: 'POST /api/enroll (64 MB + 4)',
      },
      attacker.token,
    );
    expect(many.status, many.text).toBe(413);
  }, 120_000);

  it('third round: a listed name after a restart, cookie writes without Origin, stale tokens, file names and fields, OCR floods', async () => {
    probe.phase('third round');
    const own = await signup(app.url, 'round3');
    const bad = [
      ...(await listedNameAfterRestart(app, ADMIN_NAME)),
      ...(await sessionsAndCookies(app, own.username)),
      ...(await namesAndFields(app, own.token)),
      ...(await ocrFlood(app, own.token)),
    ];
    expect(bad, replay).toEqual([]);
  }, 120_000);

  it('the service is still up, and /api/health answered every probe throughout the sweep', async () => {
    await probe.stop();
    expect(app.alive()).toBe(true);
    expect(probe.samples.length).toBeGreaterThan(20);
    const sorted = [...probe.samples].sort((a, b) => a - b);
    console.info(
      `attack sweep (${mode}): ${sorted.length} health probes, median ${Math.round(sorted[sorted.length >> 1]!)} ms, worst ${Math.round(sorted.at(-1)!)} ms less the API's CPU wait (${Math.round(Math.max(...probe.walls))} ms wall)`,
    );
    expect({ failures: probe.failures }, replay).toEqual({ failures: [] });
  });
});
