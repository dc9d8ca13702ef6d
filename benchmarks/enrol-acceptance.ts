/**
 * How many real photos enrolment accepts through the HTTP API (issue 24: 82% of holstein-dev
 * photos were refused). Every cow of the set (or `--cows N` of them, spread evenly) is enrolled
 * from all its gallery photos (at most 20 per request, the route's limit) in one embedded service;
 * a refused request is counted photo by photo from its `refused` list, and an `already_enrolled`
 * warning (the photos look like a cow enrolled before) as every photo refused.
 *
 *   TEST_PG_URL=... npx tsx benchmarks/enrol-acceptance.ts --set holstein-dev --cows 30 --out benchmarks/results/enrol-acceptance-holstein-dev.json
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { api, signup, startTestApp } from '../test/support/app.js';
import { machineInfo, parseArgs, saveResult } from './machine.js';

const args = parseArgs(process.argv.slice(2));
const set = args.get('set') ?? 'holstein-dev';
const root = path.resolve('../shared/datasets', set);
const protocol = JSON.parse(readFileSync(path.join(root, 'protocol.json'), 'utf8')) as { gallery: { id: string; path: string }[] };
const ids = [...new Set(protocol.gallery.map((g) => g.id))].sort();
const want = Math.min(ids.length, Number(args.get('cows') ?? ids.length));
const cows = Array.from({ length: want }, (_, i) => ids[Math.floor((i * ids.length) / want)]!);

const app = await startTestApp();
const owner = await signup(app.url, 'accept');
let sent = 0;
let accepted = 0;
const reasons: Record<string, number> = {};
const started = Date.now();
try {
  for (const id of cows) {
    const photos = protocol.gallery.filter((g) => g.id === id).slice(0, 20);
    if (photos.length < 3) continue;
    const form = new FormData();
    form.append('species', 'cattle');
    form.append('farm_id', 'bench');
    form.append('name', id);
    for (const p of photos)
      form.append('files', new Blob([readFileSync(path.join(root, p.path))], { type: 'image/jpeg' }), path.basename(p.path));
    const r = await api(app.url, 'POST', '/api/animal/enroll', { token: owner.token, body: form });
    sent += photos.length;
    if (r.status === 200) accepted += r.json.images.length;
    else if (r.json?.code === 'photos_refused') {
      accepted += photos.length - r.json.refused.length;
      for (const x of r.json.refused as { reasons: string[] }[]) for (const why of x.reasons) reasons[why] = (reasons[why] ?? 0) + 1;
    } else reasons[r.json?.code ?? `http_${r.status}`] = (reasons[r.json?.code ?? `http_${r.status}`] ?? 0) + photos.length;
  }
} finally {
  await app.stop();
}
const result = {
  set,
  cows: cows.length,
  photos_sent: sent,
  photos_accepted: accepted,
  accepted_share: Math.round((accepted / Math.max(1, sent)) * 10000) / 10000,
  refusals_by_reason: reasons,
  seconds: Math.round((Date.now() - started) / 1000),
  machine: machineInfo('cpu'),
};
console.log(JSON.stringify(result, null, 2));
saveResult(args.get('out'), result);
