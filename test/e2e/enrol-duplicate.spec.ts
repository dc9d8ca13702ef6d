/**
 * Duplicates and merges (issue 39 item 7), over HTTP with the real engine: other photos of an
 * enrolled animal warn before a second animal is made (not only on a `match`), naming it with its
 * photos, while a stranger's photos go in; the photos can be added to it instead. A merge is
 * remembered and can be undone: both animals come back with their photos and descriptors, identify
 * finds both again, and both chains record both acts. Another account's merge is the same 404 as
 * none at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { photoForm } from '../support/images.js';
import { animalScene } from '../../workers/src/vision/testing/animal-scene.js';

const shots = (coat: number, from: number, n: number) =>
  Promise.all(Array.from({ length: n }, (_, i) => animalScene({ coat, shot: from + i, dx: (i - 1) * 25 })));
const types = (t: { events: { body: { type?: string } }[] }) => t.events.map((e) => e.body.type);
const idOf = (did: string) => did.split(':').pop()!;

describe('duplicate warning, merge and un-merge (embedded, real engine)', () => {
  let app: TestApp;
  let owner: { token: string };
  let other: { token: string };
  const did: Record<string, string> = {};
  const post = (path: string, token: string, body: FormData | URLSearchParams) => api(app.url, 'POST', path, { token, body });
  const get = (path: string, token: string) => api(app.url, 'GET', path, { token });
  const enrol = async (token: string, photos: Buffer[], fields: Record<string, string>) =>
    post('/api/animal/enroll', token, photoForm(photos, { species: 'cattle', farm_id: 'barn', ...fields }));
  const count = async (sql: string, params: unknown[]) => (await app.container.db.query<{ n: number }>(sql, params)).rows[0]!.n;
  const imagesOf = (d: string) => count('select count(*)::int as n from images where individual_id = $1', [idOf(d)]);
  const descriptorsOf = (d: string) =>
    count('select count(*)::int as n from descriptors x join images i on i.id = x.image_id where i.individual_id = $1', [idOf(d)]);

  beforeAll(async () => {
    app = await startTestApp();
    owner = await signup(app.url, 'dupherd');
    other = await signup(app.url, 'dupother');
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('with one animal enrolled: its other photos warn, naming it with its photos; a stranger goes in', async () => {
    const first = await enrol(owner.token, await shots(35, 1, 3), { name: 'Bông' });
    expect(first.status, first.text).toBe(200);
    did.bong = first.json.animal_did;
    // Three other photos of Bông: before, a second animal with no warning (no `match` among one).
    const again = await enrol(owner.token, await shots(35, 5, 3), { name: 'Bông lần hai' });
    expect(again.status, again.text).toBe(422);
    expect(again.json).toMatchObject({ code: 'already_enrolled', overridable: true, existing: { animal_did: did.bong, name: 'Bông' } });
    expect(again.json.error).toMatch(/Bông/);
    expect(again.json.existing.evidence).not.toBe('same_photo');
    expect(again.json.existing.photos).toHaveLength(3);
    expect(again.json.existing.photo_url).toBe(again.json.existing.photos[0].url);
    const photo = await fetch(`${app.url}${again.json.existing.photo_url}`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(photo.status).toBe(200);
    // Nothing was made.
    expect((await get('/api/animal/list?farm_id=barn', owner.token)).json.total).toBe(1);
    // Another cow in the same barn is not a duplicate.
    const stranger = await enrol(owner.token, await shots(7, 1, 3), { name: 'Mận' });
    expect(stranger.status, stranger.text).toBe(200);
    did.man = stranger.json.animal_did;
  }, 240_000);

  it('with a herd: other photos of one animal warn with its photos and can be added to it; a new cow does not warn', async () => {
    const third = await enrol(owner.token, await shots(21, 1, 3), { name: 'Đen' });
    expect(third.status, third.text).toBe(200);
    did.den = third.json.animal_did;
    const newcomer = await enrol(owner.token, await shots(49, 1, 3), { name: 'Vàng' });
    expect(newcomer.status, newcomer.text).toBe(200);
    did.vang = newcomer.json.animal_did;

    const more = await shots(21, 5, 3);
    const warned = await enrol(owner.token, more, { name: 'Đen?' });
    expect(warned.status, warned.text).toBe(422);
    expect(warned.json.existing).toMatchObject({ animal_did: did.den, name: 'Đen' });
    expect(warned.json.existing.photos.length).toBeGreaterThanOrEqual(3);
    // "Add to this one": the photos go to Đen instead, recorded in its chain.
    const added = await post(`/api/animal/${encodeURIComponent(did.den!)}/photos`, owner.token, photoForm(more));
    expect(added.status, added.text).toBe(200);
    expect(await imagesOf(did.den!)).toBe(6);
    expect(types((await get(`/api/animal/${encodeURIComponent(did.den!)}/timeline`, owner.token)).json)).toEqual([
      'enroll',
      'photos_added',
    ]);
    // Another account's animals are not theirs to be warned about.
    const elsewhere = await enrol(other.token, await shots(35, 5, 3), { name: 'Bông của người khác' });
    expect(elsewhere.status, elsewhere.text).toBe(200);
  }, 300_000);

  it('merges, and un-merges: both animals back with photos and descriptors, found by identify, both acts in both chains', async () => {
    // Đen enrolled again anyway (the owner thought it another cow): a second record of one animal.
    const dupPhotos = await shots(21, 9, 3);
    const dup = await enrol(owner.token, dupPhotos, { name: 'Đen hai', accept_warnings: 'true' });
    expect(dup.status, dup.text).toBe(200);
    did.dup = dup.json.animal_did;
    const before = { den: await imagesOf(did.den!), dup: await imagesOf(did.dup!) };
    expect(before).toEqual({ den: 6, dup: 3 });

    const m = await post('/api/animal/merge', owner.token, new URLSearchParams({ into: did.den!, from: did.dup! }));
    expect(m.status, m.text).toBe(200);
    expect(m.json).toMatchObject({ animal_did: did.den, merged: did.dup, photos_moved: 3 });
    const mergeId = m.json.merge_id as string;
    const row = await app.container.db.query<{ into_id: string; from_id: string; copies: string[]; undone_at: Date | null }>(
      'select into_id, from_id, copies, undone_at from animal_merges where id = $1',
      [mergeId],
    );
    expect(row.rows[0]).toMatchObject({ into_id: idOf(did.den!), from_id: idOf(did.dup!), undone_at: null });
    expect(row.rows[0]!.copies).toHaveLength(3);
    expect(await imagesOf(did.den!)).toBe(9);
    expect(await imagesOf(did.dup!)).toBe(0);
    expect((await get(`/api/animal/${encodeURIComponent(did.dup!)}`, owner.token)).status).toBe(404);
    const listed = await get(`/api/animal/merges?animal_did=${encodeURIComponent(did.den!)}`, owner.token);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json.merges).toEqual([
      expect.objectContaining({
        merge_id: mergeId,
        into: { animal_did: did.den, name: 'Đen' },
        from: { animal_did: did.dup, name: 'Đen hai' },
        photos_moved: 3,
        undone_at: null,
      }),
    ]);
    expect(listed.json.merges[0].photos).toHaveLength(3);

    // Another account: the same 404 as a merge that does not exist, for reading and for undoing.
    const missing = '00000000-0000-4000-8000-000000000000';
    const theirs = await get(`/api/animal/merges/${mergeId}`, other.token);
    const none = await get(`/api/animal/merges/${missing}`, other.token);
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(none.text);
    const undoTheirs = await post(`/api/animal/merges/${mergeId}/undo`, other.token, new URLSearchParams());
    const undoNone = await post(`/api/animal/merges/${missing}/undo`, other.token, new URLSearchParams());
    expect(undoTheirs.status).toBe(404);
    expect(undoTheirs.text).toBe(undoNone.text);
    expect((await post(`/api/animal/merges/not-a-uuid/undo`, other.token, new URLSearchParams())).text).toBe(undoNone.text);
    const listTheirs = await get(`/api/animal/merges?animal_did=${encodeURIComponent(did.den!)}`, other.token);
    expect(listTheirs.status).toBe(404);
    expect(listTheirs.text).toBe((await get(`/api/animal/merges?animal_did=${encodeURIComponent(did.dup!)}`, other.token)).text);
    expect((await app.container.db.query('select undone_at from animal_merges where id = $1', [mergeId])).rows[0]).toEqual({
      undone_at: null,
    });

    const u = await post(`/api/animal/merges/${mergeId}/undo`, owner.token, new URLSearchParams());
    expect(u.status, u.text).toBe(200);
    expect(u.json).toMatchObject({ animal_did: did.den, restored: did.dup, photos_restored: 3, photos_removed: 3, photos_lost: 0 });
    expect(await imagesOf(did.den!)).toBe(6);
    expect(await imagesOf(did.dup!)).toBe(3);
    expect(await descriptorsOf(did.dup!)).toBeGreaterThanOrEqual(3);
    const back = await get(`/api/animal/${encodeURIComponent(did.dup!)}`, owner.token);
    expect(back.status, back.text).toBe(200);
    expect(back.json).toMatchObject({ name: 'Đen hai', image_count: 3 });
    const undone = await get(`/api/animal/merges/${mergeId}`, owner.token);
    expect(undone.json.undone_at).not.toBeNull();
    const twice = await post(`/api/animal/merges/${mergeId}/undo`, owner.token, new URLSearchParams());
    expect(twice.status).toBe(409);
    expect(twice.json.code).toBe('merge_already_undone');

    // Both chains hold both acts, intact.
    const kept = (await get(`/api/animal/${encodeURIComponent(did.den!)}/timeline`, owner.token)).json;
    expect(kept.chain_ok).toBe(true);
    expect(types(kept)).toEqual(['enroll', 'photos_added', 'merged', 'unmerged']);
    expect(kept.events[3].body).toMatchObject({ from: did.dup, merge_id: mergeId, photos_removed: 3 });
    const restored = (await get(`/api/animal/${encodeURIComponent(did.dup!)}/timeline`, owner.token)).json;
    expect(restored.chain_ok).toBe(true);
    expect(types(restored)).toEqual(['enroll', 'merged_into', 'restored']);
    expect(restored.events[2].body).toMatchObject({ from: did.den, merge_id: mergeId, photos_restored: 3 });

    // Identify finds both again: each one's own enrolled photo ranks it first.
    const ask = async (photo: Buffer) => {
      const r = await post('/api/animal/identify', owner.token, photoForm([photo]));
      expect(r.status, r.text).toBe(200);
      return r.json.closest.map((c: { animal_did: string }) => c.animal_did) as string[];
    };
    expect((await ask(dupPhotos[1]!))[0]).toBe(did.dup);
    const [denPhoto] = await shots(21, 1, 1);
    const forDen = await ask(denPhoto!);
    expect(forDen[0]).toBe(did.den);
    expect(forDen).toContain(did.dup);
  }, 300_000);
});
