/**
 * Real apple peel through the HTTP API (issues 22 and 23): the ten tagged apples of apple-dev are
 * enrolled from their September photos and identified from their October ones, as a packing
 * house would meet them weeks later, plus photos of apples never enrolled. The right apple must
 * rank first for most of them, and the service must never say `match` to a wrong apple.
 * Runs when ../shared/datasets/apple-dev is present (CI has it); skipped otherwise.
 * The photos are read from the dataset, never copied into the repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { datasetForm, datasetRoot } from '../support/datasets.js';
import { batchForm, untilDone } from '../support/fruit-batch.js';

const ROOT = datasetRoot('apple-dev');
const PROTOCOL = path.join(ROOT, 'protocol.json');

interface Protocol {
  gallery: { id: string; path: string }[];
  queries: { expect: string | null; path: string }[];
}

const form = (files: string[], fields: Record<string, string> = {}) => datasetForm(ROOT, files, fields);

describe.skipIf(!existsSync(PROTOCOL))('real photos: apple-dev through the HTTP API', () => {
  let app: TestApp;
  let owner: { token: string };
  const p: Protocol = existsSync(PROTOCOL) ? JSON.parse(readFileSync(PROTOCOL, 'utf8')) : { gallery: [], queries: [] };
  const apples = [...new Set(p.gallery.map((g) => g.id))].sort();
  const fruitOf = new Map<string, string>();

  beforeAll(async () => {
    app = await startTestApp();
    owner = await signup(app.url, 'packer');
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('enrols every apple from all its gallery photos', async () => {
    for (const id of apples) {
      const files = p.gallery.filter((g) => g.id === id).map((g) => g.path);
      const r = await api(app.url, 'POST', '/api/fruit/enroll', { token: owner.token, body: form(files, { name: `apple ${id}` }) });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json.images).toHaveLength(files.length);
      fruitOf.set(id, r.json.fruit_id);
    }
    expect(fruitOf.size).toBe(apples.length);
  }, 600_000);

  it('ranks the right apple first for most October photos and never says match to a wrong one', async () => {
    expect(fruitOf.size).toBe(apples.length);
    let enrolled = 0;
    let rightFirst = 0;
    let rightMatch = 0;
    const wrongMatches: string[] = [];
    const verdicts: Record<string, number> = {};
    for (const q of p.queries) {
      const r = await api(app.url, 'POST', '/api/fruit/identify', { token: owner.token, body: form([q.path]) });
      const want = q.expect ? fruitOf.get(q.expect) : undefined;
      if (want) enrolled++;
      // A soft photo is refused with the reason, asking for another (1 of 55 here: sharpness 10 of 15).
      if (r.status === 422) {
        expect(r.json, JSON.stringify(r.json)).toMatchObject({ code: 'image_unusable', reasons: ['too_blurred'] });
        verdicts.refused = (verdicts.refused ?? 0) + 1;
        continue;
      }
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      verdicts[r.json.verdict] = (verdicts[r.json.verdict] ?? 0) + 1;
      const first = r.json.closest[0]?.individual_id as string | undefined;
      if (want && first === want) rightFirst++;
      if (r.json.verdict === 'match') {
        if (r.json.match.individual_id === want) rightMatch++;
        else wrongMatches.push(q.path);
      }
    }
    console.log(
      `apple-dev: ${p.queries.length} queries (${enrolled} enrolled), verdicts ${JSON.stringify(verdicts)}, right apple first ${rightFirst}, right match ${rightMatch}`,
    );
    // What bench:accuracy measured is in benchmarks/results/README.md ("Small fruit photos described at
    // most three times enlarged").
    // Refused photos count against it: the share is of every enrolled apple's query.
    expect(rightFirst / enrolled).toBeGreaterThanOrEqual(0.65);
    expect(verdicts.refused ?? 0).toBeLessThanOrEqual(2);
    expect(wrongMatches).toEqual([]);
  }, 600_000);

  it("runs a packing house's batch of the October photos: every row names its fruit, an undecided row is decided with the right apple, and the CSV reads it back", async () => {
    expect(fruitOf.size).toBe(apples.length);
    const photos = p.queries
      .slice(0, 20)
      .map((q, i) => ({ name: `line-${String(i).padStart(2, '0')}.jpg`, bytes: readFileSync(path.join(ROOT, q.path)), expect: q.expect }));
    const b = await api(app.url, 'POST', '/api/fruit/batch', { token: owner.token, body: batchForm(photos) });
    expect(b.status, b.text).toBe(202);
    const done = await untilDone(app, owner.token, b.json.batch_id, 600_000);
    expect(done.rows).toHaveLength(photos.length);
    const byFile = new Map<string, any>(done.rows.map((r: any) => [r.file_name, r]));
    const verdicts: Record<string, number> = {};
    for (const ph of photos) {
      const row = byFile.get(ph.name);
      verdicts[row.verdict ?? row.status] = (verdicts[row.verdict ?? row.status] ?? 0) + 1;
      // Never a confident wrong apple; a matched row names its fruit without opening anything.
      if (row.verdict === 'match') {
        expect(row.fruit_id, ph.name).toBe(fruitOf.get(ph.expect ?? ''));
        expect(row.fruit_name, ph.name).toBe(`apple ${ph.expect}`);
      }
    }
    // An undecided row whose candidates include the right apple: the packer picks it, as the table's "this one" does.
    const undecided = photos.find((ph) => {
      const row = byFile.get(ph.name);
      return row.verdict === 'uncertain' && ph.expect && row.candidates?.some((c: any) => c.fruit_id === fruitOf.get(ph.expect!));
    });
    console.log(
      `apple-dev batch: ${photos.length} photos, rows ${JSON.stringify(verdicts)}, an undecided row with the right apple among its candidates: ${undecided ? 'yes' : 'no'}`,
    );
    if (!undecided) return;
    const row = byFile.get(undecided.name);
    const right = fruitOf.get(undecided.expect!)!;
    const first = row.candidates[0].fruit_id === right;
    const label = await api(app.url, 'POST', '/api/fruit/identify_verdict', {
      token: owner.token,
      form: { query_id: row.query_id, verdict: first ? 'correct' : 'other', correct_id: right },
    });
    expect(label.status, label.text).toBe(200);
    const again = await api(app.url, 'GET', `/api/fruit/batch/${b.json.batch_id}`, { token: owner.token });
    expect(again.json.rows.find((r: any) => r.file_name === undecided.name)).toMatchObject({
      decided_fruit_id: right,
      decided_fruit_name: `apple ${undecided.expect}`,
    });
    const csv = await fetch(`${app.url}/api/fruit/batch/${b.json.batch_id}/results.csv`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(csv.status).toBe(200);
    const lines = (await csv.text()).trimEnd().split('\r\n');
    expect(lines).toHaveLength(photos.length + 1);
    const line = lines.find((l) => l.includes(`,${undecided.name},`))!;
    expect(line).toContain(`,${right},apple ${undecided.expect},`);
  }, 900_000);
});
