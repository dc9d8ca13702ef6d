/**
 * The attack sweep's victim: one account holding one of everything the API keeps per owner,
 * created through the real routes with generated photos, and the ids an attacker would aim at.
 */
import sharp from 'sharp';
import { api, signup } from '../app.js';
import { detectableShots } from '../animal-shots.js';
import { batchForm, smallFruitPhotos, surface, untilDone } from '../fruit-batch.js';
import { otherView, packageImage, photoForm, textureImage } from '../images.js';

export interface Victim {
  token: string;
  username: string;
  farm: string;
  /** Ids by the parameter or field names routes use for them. */
  ids: {
    account: string;
    tree: string;
    code: string;
    fruit: string;
    animals: string[];
    batch: string;
    careEntry: string;
    query: string;
    treeEvent: string;
    animalEvent: string;
    alert: string | null;
    job: string | null;
    cids: string[];
  };
  /** Photos the victim uploaded, by what they were: an attacker may hold copies (a shared photo, a printed label). */
  photos: Array<{ name: string; bytes: Buffer }>;
}

async function ok(r: Promise<{ status: number; text: string; json: any }>, what: string, want = 200): Promise<any> {
  const res = await r;
  if (res.status !== want) throw new Error(`victim fixture: ${what} answered ${res.status} ${res.text.slice(0, 300)}`);
  return res.json;
}

/** Build the victim through the API; `rows` reads the app's database through the test's own connection. */
export async function createVictim(app: { url: string }, rows: (sql: string) => Promise<any[]>): Promise<Victim> {
  const v = await signup(app.url, 'victim');
  const farm = 'sweep-farm';
  const post = (p: string, body: FormData) => api(app.url, 'POST', p, { token: v.token, body });
  const treePhotos = await Promise.all([textureImage(9101, 256), textureImage(9102, 256)]);
  const tree = await ok(
    post('/api/enroll', photoForm(treePhotos, { species: 'durian', farm_id: farm, lat: '10.7626', lon: '106.6601' })),
    'enrol tree',
  );
  const treeEvent = await ok(
    api(app.url, 'POST', `/api/tree/${tree.tree_id}/event`, { token: v.token, json: { type: 'note', text: 'victim note' } }),
    'tree event',
  );

  const peel = await surface(9201);
  const fruitPhotos = [await otherView(peel, 1), await otherView(peel, 2)];
  const fruit = await ok(
    post('/api/fruit/enroll', photoForm(fruitPhotos, { species: 'mango', tree_id: tree.tree_id, farm_id: farm })),
    'enrol fruit',
  );
  const identifyPhoto = await otherView(peel, 3);
  const identified = await ok(post('/api/fruit/identify', photoForm([identifyPhoto])), 'identify fruit');

  // One animal through each prefix (spec 9.3: /api/animal/... and /animal/... are the same routes).
  const animals: string[] = [];
  const shots: Buffer[] = [];
  for (const [k, prefix] of ['/api/animal', '/animal'].entries()) {
    const s = (await detectableShots(9301 + k, 3)).map((x) => x.photo);
    shots.push(...s);
    animals.push(
      (await ok(post(`${prefix}/enroll`, photoForm(s, { species: 'cattle', farm_id: farm })), `enrol animal via ${prefix}`)).animal_did,
    );
  }
  const animalEvent = await ok(
    api(app.url, 'POST', `/animal/${animals[0]}/event`, { token: v.token, json: { type: 'note', text: 'victim animal note' } }),
    'animal event',
  );

  // Anchored events put the victim's entities into the public checkpoint log, which must not name them.
  await ok(
    api(app.url, 'POST', `/api/tree/${tree.tree_id}/event/${treeEvent.event.event_id}/anchor`, { token: v.token, json: {} }),
    'anchor tree event',
  );
  await ok(
    api(app.url, 'POST', `/api/animal/${animals[0]}/event/${animalEvent.event.event_id}/anchor`, { token: v.token, json: {} }),
    'anchor animal event',
  );

  const pack = await packageImage(9401);
  const care = new FormData();
  for (const [k, val] of Object.entries({
    target_type: 'tree',
    target_id: tree.tree_id,
    action: 'spray',
    product_name: 'copper',
    dose: '2 g/L',
  }))
    care.append(k, val);
  care.append('photo', new Blob([new Uint8Array(pack)], { type: 'image/jpeg' }), 'pack.jpg');
  const careEntry = await ok(post('/api/care/log', care), 'care log');

  const batchPhotos = await smallFruitPhotos(2, [peel]);
  const batch = await ok(post('/api/fruit/batch', batchForm(batchPhotos, { farm_id: farm })), 'fruit batch', 202);
  await untilDone(app, v.token, batch.batch_id);

  const counted = await ok(
    api(app.url, 'POST', '/api/population/count', { token: v.token, json: { farm_id: farm, zone: 'north', count: 0, method: 'visual' } }),
    'population count',
  );
  const alerts = counted.alerts ?? [];

  const job = (await rows('select id::text as id from jobs order by created_at limit 1').catch(() => []))[0]?.id ?? null;
  const cids = (await rows('select cid from images where cid is not null order by created_at limit 3')).map((r) => r.cid as string);
  if (careEntry.entry?.photo_cid) cids.push(careEntry.entry.photo_cid);
  return {
    token: v.token,
    username: v.username,
    farm,
    ids: {
      account: v.id,
      tree: tree.tree_id,
      code: tree.code,
      fruit: fruit.fruit_id,
      animals,
      batch: batch.batch_id,
      careEntry: careEntry.entry.id,
      query: identified.query_id,
      treeEvent: treeEvent.event.event_id,
      animalEvent: animalEvent.event.event_id,
      alert: alerts[0]?.alert_id ?? null,
      job,
      cids,
    },
    photos: [
      ...treePhotos.map((bytes, i) => ({ name: `tree-enrol-${i}`, bytes })),
      ...fruitPhotos.map((bytes, i) => ({ name: `fruit-enrol-${i}`, bytes })),
      { name: 'fruit-identify', bytes: identifyPhoto },
      { name: 'care-packaging', bytes: pack },
      ...batchPhotos.map((p, i) => ({ name: `batch-${i}`, bytes: p.bytes })),
      { name: 'animal-enrol-0', bytes: shots[0]! },
    ],
  };
}

/** Ids of the victim's private things: no answer to a stranger may contain one it was not sent. */
export function privateIds(v: Victim): Array<[string, string]> {
  const i = v.ids;
  const named: Array<[string, string]> = [
    ['account id', i.account],
    ['tree id', i.tree],
    ['tree code', i.code],
    ['fruit id', i.fruit],
    ...i.animals.map((d, k): [string, string] => [`animal ${k} DID`, d]),
    ['batch id', i.batch],
    ['care entry id', i.careEntry],
    ['identify query id', i.query],
    ['tree event id', i.treeEvent],
    ['animal event id', i.animalEvent],
  ];
  return named.filter(([, id]) => !!id);
}

/** A tiny valid JPEG: cheap to decode, so a route gets past "is this an image" to its checks. */
export const tinyJpeg = () =>
  sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 90, g: 120, b: 60 } } })
    .jpeg()
    .toBuffer();
