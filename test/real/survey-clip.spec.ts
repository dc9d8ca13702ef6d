/**
 * A survey of a clip made from real cow photos, through the HTTP API as the app sends it (issue 39):
 * three holstein-dev cows are enrolled from their gallery photos, a phone clip is cast with those
 * three cows cut from their held-back *query* photos (benchmarks/survey/cast.ts, the benchmark's
 * own casting; benchmarks/survey/scenes.ts's phone walk: two cross, one walks behind a bush), and
 * POST /api/survey answers what a herd owner reads: the count, each track recognised, offered with
 * candidates, or not known, and the farm's cows not seen. A fourth cow of the farm is enrolled and
 * kept out of the clip (it must be "not seen", unless a track offers it), and a fifth on another
 * farm (never "not seen": this survey could not have seen it).
 *
 * Which cow each track follows is read from the track's stored boxes against the clip's ground
 * truth (test scaffolding, not what the user sees). Asserted: the count; no `match` to a wrong cow;
 * an uncertain track offers the right cow among its candidates; "not seen" is exactly the farm's
 * cows that no track names or offers (docs/surveys.md's rule), never a cow of another farm and
 * never a cow a track named. A cow of the clip whose tracks were all `no_match`, or that no track
 * followed, is listed as not seen by that rule: the log says so per cow. Recognition is not tuned
 * here: the figures are logged (console.log) as measured. Runs when ../shared/datasets/holstein-dev is present; the photos are
 * read from the dataset, never copied into the repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { castFromDataset, type CastMember, type CastProtocol } from '../../benchmarks/survey/cast.js';
import { renderClip } from '../../benchmarks/survey/render.js';
import { phoneScene } from '../../benchmarks/survey/scenes.js';
import type { FrameBoxes } from '../../benchmarks/survey/mot-metrics.js';
import { loadDetector } from '../../workers/src/vision/detector.js';
import { iou, type Box } from '../../workers/src/survey/tracker.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { datasetForm, datasetRoot } from '../support/datasets.js';
import { videoForm } from '../support/video.js';

const ROOT = datasetRoot('holstein-dev');
const HERE = existsSync(path.join(ROOT, 'protocol.json'));
const FARM = 'trai-bo-khao-sat';
const OTHER_FARM = 'trai-bo-ben-kia';
/** Gallery photos enrolled per cow, spread over its gallery (consecutive barn frames are near twins). */
const PER_COW = 5;
const FRAMES = 48;

interface Cow {
  dataset_id: string;
  name: string;
  farm: string;
  in_clip: boolean;
  individual_id?: string;
}

/** `n` of a cow's gallery photos, evenly spread. */
function spread(p: CastProtocol, id: string, n: number): string[] {
  const all = p.gallery.filter((g) => g.id === id).map((g) => g.path);
  return Array.from({ length: Math.min(n, all.length) }, (_, i) => all[Math.floor((i * all.length) / Math.min(n, all.length))]!);
}

/** Per stored box of a track (every fifth frame), the ground-truth cow it overlaps best (IoU ≥ 0.3), or null. */
function truthPerBox(boxes: { at: number; box: Box }[], gt: FrameBoxes[], fps: number): (string | null)[] {
  return boxes.map((b) => {
    const frame = gt[Math.round(b.at * fps)];
    let best: { id: string; iou: number } | null = null;
    for (const [i, g] of (frame?.boxes ?? []).entries()) {
      const o = iou(b.box, g);
      if (o >= 0.3 && (!best || o > best.iou)) best = { id: String(frame!.ids[i]), iou: o };
    }
    return best?.id ?? null;
  });
}

/** The ground-truth cow a track follows: the one its stored boxes overlap most often. */
function truthOf(perBox: (string | null)[]): string | null {
  const votes = new Map<string, number>();
  for (const id of perBox) if (id) votes.set(id, (votes.get(id) ?? 0) + 1);
  return [...votes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

describe.skipIf(!HERE)('real photos: a survey of a clip cast from three enrolled holstein-dev cows', () => {
  let app: TestApp;
  let owner: { token: string };
  const proto: CastProtocol = HERE ? JSON.parse(readFileSync(path.join(ROOT, 'protocol.json'), 'utf8')) : { gallery: [], queries: [] };
  let cast: CastMember[] = [];
  const cows: Cow[] = [];
  let clip: { video: Buffer; gt: FrameBoxes[] };

  beforeAll(async () => {
    // The benchmark's casting: the first three cows (sorted ids) whose query photo the detector finds.
    const detector = await loadDetector();
    cast = (await castFromDataset(detector, ROOT, proto, { enrolled: 5, strangers: 0 })).enrolled;
    expect(cast.length, 'detectable cows in holstein-dev').toBeGreaterThanOrEqual(5);
    const inClip = cast.slice(0, 3);
    cows.push(
      ...inClip.map((c, i) => ({ dataset_id: c.id, name: `Bò ${i + 1}`, farm: FARM, in_clip: true })),
      { dataset_id: cast[3]!.id, name: 'Bò vắng', farm: FARM, in_clip: false },
      { dataset_id: cast[4]!.id, name: 'Bò trại khác', farm: OTHER_FARM, in_clip: false },
    );
    clip = await renderClip(await phoneScene(inClip, FRAMES));
    app = await startTestApp();
    owner = await signup(app.url, 'survey_real');
  }, 300_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('enrols the cows through the API from their gallery photos', async () => {
    for (const cow of cows) {
      // The owner knows these are different cows: warnings (a near-twin photo, "looks like one
      // already enrolled") are accepted as the app's "keep anyway" / "a different one" do.
      const r = await api(app.url, 'POST', '/api/animal/enroll', {
        token: owner.token,
        body: datasetForm(ROOT, spread(proto, cow.dataset_id, PER_COW), {
          species: 'cattle',
          farm_id: cow.farm,
          name: cow.name,
          accept_warnings: 'true',
        }),
      });
      expect(r.status, `${cow.name}: ${r.text.slice(0, 400)}`).toBe(200);
      cow.individual_id = r.json.individual_id;
      expect(cow.individual_id).toMatch(/^[0-9a-f-]{36}$/);
    }
  }, 600_000);

  it('surveys the clip: the count, each track recognised or offered with the right cow, no wrong match, and who was not seen', async () => {
    expect(cows.every((c) => c.individual_id)).toBe(true);
    const started = await api(app.url, 'POST', '/api/survey', {
      token: owner.token,
      body: videoForm(clip.video, { kind: 'animal', species: 'cattle', farm_id: FARM }),
    });
    expect(started.status, started.text).toBe(202);
    const t0 = Date.now();
    let s: any;
    for (;;) {
      s = (await api(app.url, 'GET', started.json.links.self, { token: owner.token })).json;
      if (s.status !== 'running') break;
      if (Date.now() - t0 > 540_000) throw new Error(`survey not done in 540 s: ${JSON.stringify(s).slice(0, 300)}`);
      await new Promise((res) => setTimeout(res, 1000));
    }
    expect(s.status, JSON.stringify(s.error)).toBe('done');
    const res = s.result;

    const byDataset = new Map(cows.map((c) => [c.dataset_id, c]));
    const byIndividual = new Map(cows.map((c) => [c.individual_id!, c]));
    const nameOf = (id: string | null | undefined) => (id ? (byIndividual.get(id)?.name ?? `other ${id.slice(0, 8)}`) : '-');
    const stored = await app.container.db.query<{ track_no: number; boxes: { at: number; box: Box }[] }>(
      'select track_no, boxes from survey_tracks where survey_id = $1 order by track_no',
      [started.json.survey_id],
    );
    const perBox = new Map(stored.rows.map((r) => [r.track_no, truthPerBox(r.boxes, clip.gt, 10)]));
    const truth = new Map([...perBox].map(([no, ids]) => [no, truthOf(ids)]));
    const shortName = (id: string | null) => (id ? (byDataset.get(id)?.name.replace('Bò ', '') ?? '?') : '-');

    const lines: string[] = [];
    const tally = { match: 0, uncertain: 0, no_match: 0 };
    let rightOffered = 0;
    let wrongMatches = 0;
    for (const t of res.tracks as {
      track: number;
      verdict: 'match' | 'uncertain' | 'no_match';
      individual_id: string | null;
      candidates: { individual_id: string; probability: number }[];
      first_s: number;
      last_s: number;
      frames: string[];
    }[]) {
      tally[t.verdict]++;
      const cow = byDataset.get(truth.get(t.track) ?? '');
      const rank = cow ? t.candidates.findIndex((c) => c.individual_id === cow.individual_id) : -1;
      if (t.verdict === 'match' && t.individual_id !== cow?.individual_id) wrongMatches++;
      if (t.verdict === 'uncertain' && rank >= 0) rightOffered++;
      lines.push(
        `  track ${t.track} (${t.first_s}-${t.last_s} s, ${t.frames.length} crops) follows ${cow?.name ?? 'no cow of the clip'}: ${t.verdict}` +
          (t.verdict === 'match' ? ` ${nameOf(t.individual_id)}` : '') +
          `; candidates ${t.candidates.map((c) => `${nameOf(c.individual_id)} ${c.probability.toFixed(3)}`).join(', ') || 'none'}` +
          (cow ? `; right cow ${rank >= 0 ? `#${rank + 1}` : 'not offered'}` : '') +
          `; cow under its box every 5th frame: ${(perBox.get(t.track) ?? []).map(shortName).join(' ')}`,
      );
    }
    const names = (xs: { individual_id: string }[]) => xs.map((x) => nameOf(x.individual_id)).join(', ') || 'none';
    // Per cow of the clip: which tracks were on it, and whether the owner is told it was not seen.
    const notSeenIds = new Set((res.not_seen as { individual_id: string }[]).map((n) => n.individual_id));
    const notNamedIds = new Set((res.not_named as { individual_id: string }[]).map((n) => n.individual_id));
    const perCow = cows
      .filter((c) => c.in_clip)
      .map((c) => {
        // Every track whose boxes were on this cow at some point (a track that switched cows counts for both).
        const followed = [...perBox.entries()]
          .filter(([, ids]) => ids.includes(c.dataset_id))
          .map(([no, ids]) => `${no} (${ids.filter((id) => id === c.dataset_id).length} of ${ids.length} boxes)`);
        const visible = clip.gt.filter((g) => g.ids.map(String).includes(c.dataset_id)).length;
        return `${c.name} (at least half visible in ${visible} of ${clip.gt.length} frames): ${followed.length ? `on track ${followed.join(', ')}` : 'no track'}${notSeenIds.has(c.individual_id!) ? ', listed as not seen' : ''}${notNamedIds.has(c.individual_id!) ? ', listed as not named' : ''}`;
      });
    console.log(
      [
        `survey of a real-photo clip (holstein-dev ${cows
          .filter((c) => c.in_clip)
          .map((c) => `${c.name}=${c.dataset_id}`)
          .join(' ')}; ${FRAMES} frames, ${res.frames_per_second} frames/s):`,
        `  count ${res.count} (true 3), tracks ${res.tracks.length}: match ${tally.match}, uncertain ${tally.uncertain}, no_match ${tally.no_match}; ` +
          `uncertain offering the right cow ${rightOffered}/${tally.uncertain}; wrong matches ${wrongMatches}`,
        ...lines,
        `  cows of the clip: ${perCow.join('; ')}`,
        `  known: ${names(res.known)}; maybe seen: ${names(res.maybe_seen)}; not seen: ${names(res.not_seen)}; not named: ${names(res.not_named)}`,
      ].join('\n'),
    );

    // What the owner is told.
    expect(res.count, 'three cows walk through the clip').toBe(3);
    // Every track follows a cow of the clip (no track on the bush or the grass).
    for (const t of res.tracks) expect(truth.get(t.track), `track ${t.track}`).toBeTruthy();
    // Never a confident wrong name, and a named cow is one that was there.
    expect(wrongMatches).toBe(0);
    for (const k of res.known) expect(byIndividual.get(k.individual_id)?.in_clip, nameOf(k.individual_id)).toBe(true);
    // An uncertain track offers its own cow among the candidates the owner picks from.
    for (const u of res.tracks.filter((t: { verdict: string }) => t.verdict === 'uncertain')) {
      const cow = byDataset.get(truth.get(u.track)!);
      expect(
        u.candidates.map((c: { individual_id: string }) => c.individual_id),
        `track ${u.track} (${cow?.name})`,
      ).toContain(cow?.individual_id);
    }
    // The surveyed farm's cows that no track names and no uncertain track offers: not seen only when
    // every head was named or offered; while a track is unrecognised they are not named, as any of
    // them may be that head (a cow on screen was listed as not seen before).
    const seen = new Set((res.known as { individual_id: string }[]).map((k) => k.individual_id));
    const offered = new Set((res.maybe_seen as { individual_id: string }[]).map((k) => k.individual_id));
    const farmCows = cows.filter((c) => c.farm === FARM).map((c) => c.individual_id!);
    const ids = (xs: { individual_id: string }[]) => xs.map((n) => n.individual_id).sort();
    const rest = farmCows.filter((id) => !seen.has(id) && !offered.has(id)).sort();
    expect(ids(res.unknown.length ? res.not_named : res.not_seen)).toEqual(rest);
    expect(res.unknown.length ? res.not_seen : res.not_named).toEqual([]);
    for (const c of cows.filter((x) => x.in_clip)) expect(ids(res.not_seen), `${c.name} is on the clip`).not.toContain(c.individual_id);
    const away = cows.find((c) => c.farm === OTHER_FARM)!;
    expect(ids([...res.not_seen, ...res.maybe_seen, ...res.not_named])).not.toContain(away.individual_id);
    // The cow kept out of the clip is not seen, unless a track offered it as a candidate.
    const absent = cows.find((c) => c.farm === FARM && !c.in_clip)!;
    expect(seen.has(absent.individual_id!), 'the absent cow named as seen').toBe(false);
  }, 600_000);
});
