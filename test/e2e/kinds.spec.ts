import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type Mode, type TestApp } from '../support/app.js';
import { blankImage, flowerImage, otherView, packageImage, photoForm, textureImage } from '../support/images.js';
import { animalScene } from '../../workers/src/vision/testing/animal-scene.js';
import { shippedCalibration } from '../../workers/src/vision/kind-calibration.js';
import { severalScopeFor } from '../../workers/src/vision/calibrate.js';

/** Enrolment views and one unseen query view of the surface `seed`. */
async function views(seed: number, n = 3) {
  const surface = await textureImage(seed, 512);
  const enrol = await Promise.all(Array.from({ length: n }, (_, k) => otherView(surface, seed * 10 + k + 1)));
  return { enrol, query: await otherView(surface, seed * 10 + 9) };
}

const post = (app: TestApp, path: string, token: string, form: FormData) => api(app.url, 'POST', path, { token, body: form });
const blobCount = async (app: TestApp) => (await app.container.db.query<{ n: number }>('select count(*)::int as n from blobs')).rows[0]!.n;

describe.each<Mode>(['embedded', 'distributed'])('fruit, animal and auto lanes (%s)', (mode) => {
  let app: TestApp;
  let owner: { token: string };
  let stranger: { token: string };
  const q: Record<string, Buffer> = {};
  let treeId: string;
  const fruitIds: string[] = [];
  let animalDid: string;

  beforeAll(async () => {
    app = await startTestApp({ mode });
    owner = await signup(app.url, 'lanes');
    stranger = await signup(app.url, 'stranger');
    // Hanoi: the tree is enrolled there, so the location filter can be checked.
    const tree = await views(301);
    q.tree = tree.query;
    const t = await post(
      app,
      '/api/enroll',
      owner.token,
      photoForm(tree.enrol, { species: 'longan', farm_id: 'farm-l', lat: '21.0285', lon: '105.8542' }),
    );
    expect(t.status).toBe(200);
    treeId = t.json.tree_id;
    for (const seed of [401, 402, 403]) {
      const f = await views(seed);
      q[`fruit${seed}`] = f.query;
      const r = await post(app, '/api/fruit/enroll', owner.token, photoForm(f.enrol, { tree_id: treeId, species: 'longan' }));
      expect(r.status, r.text).toBe(200);
      fruitIds.push(r.json.fruit_id);
    }
    // Animal enrolment needs an animal in each photo: generated field scenes of one coat.
    const shots = await Promise.all(
      [
        [1, -30],
        [2, 0],
        [3, 30],
        [9, -10],
      ].map(([shot, dx]) => animalScene({ coat: 501, shot, dx })),
    );
    q.animal = shots[3]!;
    q.animal2 = await animalScene({ coat: 501, shot: 10, dx: 15 });
    const r = await post(app, '/api/animal/enroll', owner.token, photoForm(shots.slice(0, 3), { species: 'cattle', farm_id: 'farm-l' }));
    expect(r.status, r.text).toBe(200);
    animalDid = r.json.animal_did;
  }, 240_000);
  afterAll(async () => {
    await app?.stop();
  });

  describe('fruit', () => {
    it('enrols server-only by default: no record, no chain event', async () => {
      const rows = await app.container.db.query('select * from entity_records where entity_id = any($1)', [fruitIds]);
      expect(rows.rows).toHaveLength(0);
      const tl = await api(app.url, 'GET', `/api/fruit/${fruitIds[0]}/timeline`, { token: owner.token });
      expect(tl.status).toBe(200);
      expect(tl.json.events).toEqual([]);
      const again = await post(app, '/api/fruit/enroll', owner.token, photoForm([await textureImage(404)]));
      expect(again.json.evidence).toBe('server_only');
      expect(again.json.record_cid).toBeUndefined();
    });

    it('identifies a fruit from an unseen view, narrowed to its tree or not', async () => {
      for (const [k, seed] of [401, 402, 403].entries()) {
        const r = await post(app, '/api/fruit/identify', owner.token, photoForm([q[`fruit${seed}`]!], { tree_id: treeId }));
        expect(r.status).toBe(200);
        expect(r.json.match?.individual_id, `fruit ${seed}`).toBe(fruitIds[k]);
      }
      const wide = await post(app, '/api/fruit/identify', owner.token, photoForm([q.fruit402!]));
      expect(wide.json.candidates[0].individual_id).toBe(fruitIds[1]);
    });

    it("refuses another account's tree as a filter with the same 404 as a missing one", async () => {
      const foreign = await post(app, '/api/fruit/identify', stranger.token, photoForm([q.fruit401!], { tree_id: treeId }));
      const missing = await post(
        app,
        '/api/fruit/identify',
        stranger.token,
        photoForm([q.fruit401!], { tree_id: '00000000-0000-4000-8000-000000000000' }),
      );
      expect(foreign.status).toBe(404);
      expect(missing.status).toBe(404);
      expect(foreign.json.error).toBe(missing.json.error);
      const enrol = await post(app, '/api/fruit/enroll', stranger.token, photoForm([await textureImage(405)], { tree_id: treeId }));
      expect(enrol.status).toBe(404);
    });

    it('lists views with a measured description', async () => {
      const r = await api(app.url, 'GET', `/api/fruit/${fruitIds[0]}/views?describe=1`, { token: owner.token });
      expect(r.status).toBe(200);
      expect(r.json.fruit_id).toBe(fruitIds[0]);
      expect(r.json.count).toBe(3);
      expect(r.json.features_vi).toMatch(/cao|vừa|thấp/);
      expect((await api(app.url, 'GET', `/api/fruit/${fruitIds[0]}/views`, { token: stranger.token })).status).toBe(404);
    });
  });

  describe('animal', () => {
    it('requires three photos, species and farm_id, and keeps nothing from a refused enrolment', async () => {
      const before = await blobCount(app);
      const few = await post(
        app,
        '/api/animal/enroll',
        owner.token,
        photoForm([await textureImage(601), await textureImage(602)], { species: 'cattle', farm_id: 'f' }),
      );
      expect(few.status).toBe(422);
      expect(few.json.detail).toBe('files');
      const three = await Promise.all([603, 604, 605].map((s) => textureImage(s)));
      const noSpecies = await post(app, '/api/animal/enroll', owner.token, photoForm(three, { farm_id: 'f' }));
      expect(noSpecies.status).toBe(422);
      expect(noSpecies.json.detail).toBe('species');
      expect(await blobCount(app)).toBe(before);
    });

    it('identifies the animal and names it by animal_did, on /api/animal and its /animal mirror', async () => {
      expect(animalDid).toMatch(/^did:markless:animal:[0-9a-f-]{36}$/);
      for (const path of ['/api/animal/identify', '/animal/identify']) {
        const r = await post(app, `${path}?channels=body`, owner.token, photoForm([q.animal!]));
        expect(r.status, path).toBe(200);
        expect(r.json.verdict).toBe('match');
        expect(r.json.match.animal_did).toBe(animalDid);
      }
      // Eleven photos are more than one query takes.
      const eleven = await post(app, '/api/animal/identify', owner.token, photoForm(Array.from({ length: 11 }, () => q.animal!)));
      expect(eleven.status).toBe(413);
      expect(eleven.json).toMatchObject({ code: 'too_many_files_in', detail: 'files' });
    });

    it('fuses several photos of one animal into one query, on both prefixes, and says which calibration decided', async () => {
      for (const path of ['/api/animal/identify', '/animal/identify']) {
        const r = await post(app, path, owner.token, photoForm([q.animal!, q.animal2!]));
        expect(r.status, path).toBe(200);
        expect(r.json.verdict).toBe('match');
        expect(r.json.match.animal_did).toBe(animalDid);
        // One query, both photos stored with it (a later label refers to both).
        const row = await app.container.db.query<{ image_cids: string[] }>('select image_cids from identify_queries where id = $1', [
          r.json.query_id,
        ]);
        expect(row.rows[0]!.image_cids).toHaveLength(2);
        // A fresh owner with three photos has no calibration of its own: the kind's defaults, said
        // so. A herd all of cattle gets the calibration shipped for cattle (models/calibration), in
        // its small-herd band, with the bound it was vouched at.
        const shipped = shippedCalibration('animal', r.json.model.version, { species: 'cattle', individuals: 1 })!;
        expect(shipped.source).toBe('kind:shipped:cattle:small');
        expect(r.json.calibration).toMatchObject({
          source: 'kind_default',
          reason: expect.stringMatching(/not yet calibrated.*the kind's calibration, fitted on \d+ individuals of other herds/),
          match_threshold: Math.round(shipped.matchThreshold * 1e4) / 1e4,
          false_match_bound: Math.round(shipped.vouched!.fmrUpper * 1e4) / 1e4,
        });
        expect(r.json.calibration.false_match_bound).toBeLessThanOrEqual(0.01);
        // Two photos are decided by the pairs' threshold shipped with it, and the answer says so.
        const pairs = severalScopeFor(shipped, 2)!;
        expect(r.json.calibration.several).toEqual([
          {
            photos: 2,
            match_threshold: Math.round(pairs.matchThreshold * 1e4) / 1e4,
            samples: pairs.queries,
            false_match_bound: pairs.fmrUpper,
            held_to: 'best_photo',
          },
        ]);
      }
    });

    /** A new account's herd of one animal of `species`, enrolled from generated photos, and its answer to the shared query. */
    async function oneAnimalHerd(user: string, species: string, farm: string, coat: number) {
      const herd = await signup(app.url, user);
      const shots = await Promise.all(
        [
          [1, -30],
          [2, 0],
          [3, 30],
        ].map(([shot, dx]) => animalScene({ coat, shot, dx })),
      );
      const e = await post(app, '/api/animal/enroll', herd.token, photoForm(shots, { species, farm_id: farm }));
      expect(e.status, e.text).toBe(200);
      const r = await post(app, '/api/animal/identify', herd.token, photoForm([q.animal!]));
      expect(r.status, r.text).toBe(200);
      // Whatever the verdict, the closest animal shown is this herd's only one.
      expect(r.json.candidates[0]?.animal_did).toBe(e.json.animal_did);
      return r.json;
    }
    const rounded = (v: number) => Math.round(v * 1e4) / 1e4;

    it("a herd of nyala is decided by nyala's own shipped threshold, far stricter than cattle's, and no pairs' threshold", async () => {
      const answer = await oneAnimalHerd('nyala', 'Nyala', 'reserve', 501);
      const nyala = shippedCalibration('animal', answer.model.version, { species: 'nyala', individuals: 1 })!;
      expect(nyala.source).toBe('kind:shipped:nyala:small');
      expect(nyala.matchThreshold).toBeGreaterThan(
        shippedCalibration('animal', answer.model.version, { species: 'cattle', individuals: 1 })!.matchThreshold,
      );
      expect(answer.calibration).toMatchObject({
        source: 'kind_default',
        match_threshold: rounded(nyala.matchThreshold),
        false_match_bound: rounded(nyala.vouched!.fmrUpper),
        several: null,
      });
      expect(answer.calibration.false_match_bound).toBeLessThanOrEqual(0.01);
    });

    it('a herd of a species no dataset stood for is decided by the threshold that held for every species, and says so', async () => {
      const answer = await oneAnimalHerd('goats', 'goat', 'hill', 502);
      const any = shippedCalibration('animal', answer.model.version, { species: 'goat', individuals: 1 })!;
      expect(any.source).toBe('kind:shipped:*:small');
      expect(answer.calibration).toMatchObject({
        source: 'kind_default',
        reason: expect.stringMatching(/no dataset stood for this herd's species/),
        match_threshold: rounded(any.matchThreshold),
        false_match_bound: rounded(any.vouched!.fmrUpper),
        several: null,
      });
      // No looser than the strictest species measured (nyala), and vouched at ≤ 1%.
      expect(any.matchThreshold).toBeGreaterThanOrEqual(
        shippedCalibration('animal', answer.model.version, { species: 'nyala', individuals: 1 })!.matchThreshold,
      );
      expect(answer.calibration.false_match_bound).toBeLessThanOrEqual(0.01);
    });
  });

  describe('POST /api/identify/auto', () => {
    it("routes each kind to its lane and returns that route's answer verbatim", async () => {
      const direct = await post(app, '/api/identify', owner.token, photoForm([q.tree!]));
      const tree = await post(app, '/api/identify/auto', owner.token, photoForm([q.tree!]));
      expect(tree.status).toBe(200);
      expect(tree.json).toMatchObject({ ok: true, kind: 'tree', lane: '/api/identify' });
      expect(tree.json.result.match.individual_id).toBe(treeId);
      // Same body as the direct call, but for the query's own id.
      const strip = (b: Record<string, unknown>) => ({ ...b, query_id: undefined });
      expect(strip(tree.json.result)).toEqual(strip(direct.json));

      const fruit = await post(app, '/api/identify/auto', owner.token, photoForm([q.fruit403!]));
      expect(fruit.json).toMatchObject({ kind: 'fruit', lane: '/api/fruit/identify' });
      expect(fruit.json.result.match.individual_id).toBe(fruitIds[2]);

      const animal = await post(app, '/api/identify/auto', owner.token, photoForm([q.animal!]));
      expect(animal.json).toMatchObject({ kind: 'animal', lane: '/api/animal/identify' });
      expect(animal.json.result.match.animal_did).toBe(animalDid);
    });

    it("stores the chosen lane's query, so a ground-truth label can refer to it", async () => {
      const r = await post(app, '/api/identify/auto', owner.token, photoForm([q.tree!]));
      const label = await api(app.url, 'POST', '/api/identify_verdict', {
        token: owner.token,
        form: { query_id: r.json.result.query_id, verdict: 'correct' },
      });
      expect(label.status).toBe(200);
      const row = await app.container.db.query<{ kind: string }>('select kind from identify_queries where id = $1', [
        r.json.result.query_id,
      ]);
      expect(row.rows[0]?.kind).toBe('tree');
    });

    it('answers not recognised for blank photos, flowers, processed goods and unrelated surfaces', async () => {
      const blank = await post(app, '/api/identify/auto', owner.token, photoForm([await blankImage()]));
      expect(blank.status).toBe(200);
      expect(blank.json).toMatchObject({ ok: true, kind: 'not_recognised', lane: null, result: null, reason: 'unusable_photo' });
      for (const [what, photo] of [
        ['flower', await flowerImage(1)],
        ['processed goods', await packageImage(2)],
        ['unrelated surface', (await views(999)).query],
      ] as const) {
        const r = await post(app, '/api/identify/auto', owner.token, photoForm([photo]));
        expect(r.status, what).toBe(200);
        expect(r.json.kind, what).toBe('not_recognised');
        expect(r.json.result, what).toBeNull();
        expect(['unusable_photo', 'no_enrolled_match']).toContain(r.json.reason);
        for (const c of r.json.checked) expect(c.verdict, what).not.toBe('match');
      }
    });

    it('never matches across accounts, and says when nothing is enrolled', async () => {
      const r = await post(app, '/api/identify/auto', stranger.token, photoForm([q.tree!]));
      expect(r.json).toMatchObject({ kind: 'not_recognised', reason: 'nothing_enrolled', checked: [] });
    });

    it('narrows trees by lat/lon: found near where it was enrolled, not from across the country', async () => {
      const near = await post(app, '/api/identify/auto', owner.token, photoForm([q.tree!], { lat: '21.03', lon: '105.85' }));
      expect(near.json.kind).toBe('tree');
      const far = await post(app, '/api/identify/auto', owner.token, photoForm([q.tree!], { lat: '10.7769', lon: '106.7009' }));
      expect(far.json.kind).toBe('not_recognised');
      expect(far.json.checked.find((c: { kind: string }) => c.kind === 'tree').verdict).not.toBe('match');
      const half = await post(app, '/api/identify/auto', owner.token, photoForm([q.tree!], { lat: '21.03' }));
      expect(half.status).toBe(422);
      expect(half.json.detail).toBe('lon');
    });
  });
});
