import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type Mode, type TestApp } from '../support/app.js';
import { otherView, photoForm, textureImage } from '../support/images.js';

/** Two enrolment views and one unseen query view of the surface `seed` (small, so the suite stays quick). */
async function views(seed: number) {
  const surface = await textureImage(seed, 256);
  return {
    enrol: [await otherView(surface, seed * 10 + 1), await otherView(surface, seed * 10 + 2)],
    query: await otherView(surface, seed * 10 + 9),
  };
}
const post = (app: TestApp, path: string, form: FormData, token?: string) =>
  api(app.url, 'POST', path, { body: form, ...(token ? { token } : {}) });
const count = async (app: TestApp, table: string) =>
  (await app.container.db.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]!.n;

/** The public fruit routes against one started service; one spec file per mode, so the two run side by side. */
export function publicFruitSuite(mode: Mode): void {
  describe(`public fruit lookup and point-of-sale scan (${mode})`, () => {
    let app: TestApp;
    let owner: { token: string };
    let other: { token: string };
    let privateTree: string;
    let publicTree: string;
    let publicCode: string;
    const pub: string[] = [];
    const q: Record<number, Buffer> = {};
    let ownPrivate: string;
    let foreignPrivate: string;

    const enrolFruit = async (token: string, photos: Buffer[], fields: Record<string, string>) => {
      const r = await post(app, '/api/fruit/enroll', photoForm(photos, { species: 'mango', ...fields }), token);
      expect(r.status, r.text).toBe(200);
      return r.json.fruit_id as string;
    };

    beforeAll(async () => {
      app = await startTestApp({ mode, env: { FRUIT_PUBLIC_PER_MIN: '10000' } });
      owner = await signup(app.url, 'grower');
      other = await signup(app.url, 'neighbour');
      const trees: string[] = [];
      for (const seed of [901, 902]) {
        const t = await views(seed);
        const r = await post(app, '/api/enroll', photoForm(t.enrol, { species: 'mango', lat: '10.03', lon: '105.78' }), owner.token);
        expect(r.status, r.text).toBe(200);
        trees.push(r.json.tree_id);
      }
      [privateTree, publicTree] = trees as [string, string];
      const published = await api(app.url, 'POST', `/api/tree/${publicTree}/publish`, { token: owner.token, form: {} });
      expect(published.status).toBe(200);
      publicCode = published.json.code;
      // Six public fruit (one more than a lookup may show), half on each tree.
      for (const [k, seed] of [911, 912, 913, 914, 915, 916].entries()) {
        const f = await views(seed);
        q[seed] = f.query;
        const id = await enrolFruit(owner.token, f.enrol, { tree_id: k % 2 ? publicTree : privateTree });
        expect((await api(app.url, 'POST', `/api/fruit/${id}/publish`, { token: owner.token })).json).toMatchObject({
          ok: true,
          fruit_id: id,
          visibility: 'public',
        });
        pub.push(id);
      }
      // Private fruit of the very surfaces the queries show: they would rank first if private fruit leaked.
      const s1 = await textureImage(911, 256);
      ownPrivate = await enrolFruit(owner.token, [await otherView(s1, 9119), await otherView(s1, 9118)], {});
      const s2 = await textureImage(912, 256);
      foreignPrivate = await enrolFruit(other.token, [await otherView(s2, 9129), await otherView(s2, 9128)], {});
    }, 300_000);
    afterAll(async () => {
      await app?.stop();
    });

    it('looks up without an account: at most 5 public candidates with fetchable photos, the right fruit first', async () => {
      const r = await post(app, '/api/fruit/lookup', photoForm([q[911]!]));
      expect(r.status, r.text).toBe(200);
      expect(r.json.candidates.length).toBe(5);
      expect(r.json.count).toBe(5);
      expect(r.json.candidates[0].fruit_id).toBe(pub[0]);
      for (const c of r.json.candidates) {
        expect(pub).toContain(c.fruit_id);
        expect(c.photos.length).toBeGreaterThan(0);
        expect(c).not.toHaveProperty('owner_id');
        expect(c).not.toHaveProperty('farm_id');
      }
      const photo = await fetch(app.url + r.json.candidates[0].photos[0].url);
      expect(photo.status).toBe(200);
      expect((await photo.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    });

    it('never offers private fruit, own or foreign, even when it is the closer match', async () => {
      for (const seed of [911, 912]) {
        const r = await post(app, '/api/fruit/lookup', photoForm([q[seed]!]));
        expect(r.status).toBe(200);
        const ids = r.json.candidates.map((c: { fruit_id: string }) => c.fruit_id);
        expect(ids).not.toContain(ownPrivate);
        expect(ids).not.toContain(foreignPrivate);
      }
      // Their photos are not public either.
      const img = await app.container.db.query<{ cid: string }>('select cid from images where individual_id = $1 limit 1', [
        foreignPrivate,
      ]);
      expect((await fetch(`${app.url}/api/blobs/${img.rows[0]!.cid}`)).status).toBe(404);
    });

    it('links a public tree and never a private one', async () => {
      const r = await post(app, '/api/fruit/lookup', photoForm([q[912]!]));
      const byId = new Map(r.json.candidates.map((c: { fruit_id: string }) => [c.fruit_id, c]));
      const onPublic = byId.get(pub[1]!) as { tree: { tree_id: string; link: string } };
      expect(onPublic.tree).toEqual({ tree_id: publicTree, code: publicCode, link: `/t/${encodeURIComponent(publicCode)}` });
      for (const c of r.json.candidates) {
        expect(c.tree?.tree_id ?? null).not.toBe(privateTree);
        if (pub.indexOf(c.fruit_id) % 2 === 0) expect(c.tree).toBeNull();
      }
      expect(JSON.stringify(r.json)).not.toContain(privateTree);
    });

    it('keeps nothing about the caller: no stored photo, no query row', async () => {
      const before = { blobs: await count(app, 'blobs'), queries: await count(app, 'identify_queries') };
      const r = await post(app, '/api/fruit/lookup', photoForm([q[913]!]));
      expect(r.status).toBe(200);
      expect(await count(app, 'blobs')).toBe(before.blobs);
      expect(await count(app, 'identify_queries')).toBe(before.queries);
    });

    it('refuses a missing or wrong-type photo with 422', async () => {
      expect((await post(app, '/api/fruit/lookup', new FormData())).status).toBe(422);
      const r = await post(app, '/api/fruit/scan', photoForm([Buffer.from('not an image at all, just text')]));
      expect(r.status).toBe(422);
      expect(r.json.code).toBe('file_wrong_type');
    });

    it('scan → choose: issued, wrong candidate (token kept), chosen, reused', async () => {
      const s = await post(app, '/api/fruit/scan', photoForm([q[914]!]));
      expect(s.status, s.text).toBe(200);
      expect(typeof s.json.scan_token).toBe('string');
      expect(new Date(s.json.expires_at).getTime()).toBeGreaterThan(Date.now());
      expect(s.json.candidates[0].fruit_id).toBe(pub[3]);
      const choose = (fruit_id: string, scan_token = s.json.scan_token) =>
        api(app.url, 'POST', '/api/fruit/scan/choose', { form: { scan_token, fruit_id } });
      const offered = s.json.candidates.map((c: { fruit_id: string }) => c.fruit_id);
      const notOffered = pub.find((id) => !offered.includes(id))!;
      const wrong = await choose(notOffered);
      expect(wrong.status).toBe(400);
      expect(wrong.json).toMatchObject({ ok: false, code: 'fruit_scan_not_offered', detail: 'fruit_id' });
      const chosen = await choose(pub[3]!);
      expect(chosen.status, chosen.text).toBe(200);
      expect(chosen.json).toMatchObject({
        ok: true,
        chosen: true,
        fruit_id: pub[3],
        species: 'mango',
        evidence: 'server_only',
        image_count: 2,
      });
      expect(chosen.json.tree).toMatchObject({ tree_id: publicTree });
      expect(chosen.json.photos.length).toBe(2);
      const again = await choose(pub[3]!);
      expect(again.status).toBe(400);
      expect(again.json.code).toBe('fruit_scan_token_used');
      const row = await app.container.db.query('select chosen_id from fruit_scan_tokens where chosen_id is not null');
      expect(row.rows.map((x) => x.chosen_id)).toContain(pub[3]);
    });

    it('scan → choose: unknown and expired tokens are refused and the expired one stays unused', async () => {
      const unknown = await api(app.url, 'POST', '/api/fruit/scan/choose', { form: { scan_token: 'no-such-token', fruit_id: pub[0]! } });
      expect(unknown.status).toBe(400);
      expect(unknown.json.code).toBe('fruit_scan_token_invalid');
      const s = await post(app, '/api/fruit/scan', photoForm([q[915]!]));
      expect(s.status).toBe(200);
      // Age the token instead of waiting FRUIT_SCAN_TTL_S.
      await app.container.db.query(`update fruit_scan_tokens set expires_at = now() - interval '1 second' where consumed_at is null`);
      const late = await api(app.url, 'POST', '/api/fruit/scan/choose', {
        form: { scan_token: s.json.scan_token, fruit_id: s.json.candidates[0].fruit_id },
      });
      expect(late.status).toBe(400);
      expect(late.json.code).toBe('fruit_scan_token_expired');
      expect(await count(app, 'fruit_scan_tokens where consumed_at is null')).toBeGreaterThan(0);
    });

    it('publish and unpublish: owner only; an unpublished fruit leaves lookups, scans and public photos', async () => {
      expect((await api(app.url, 'POST', `/api/fruit/${pub[5]}/publish`, { token: other.token })).status).toBe(404);
      expect((await api(app.url, 'POST', `/api/fruit/${pub[5]}/publish`)).status).toBe(401);
      const s = await post(app, '/api/fruit/scan', photoForm([q[916]!]));
      expect(s.json.candidates[0].fruit_id).toBe(pub[5]);
      const photoUrl = s.json.candidates[0].photos[0].url;
      const off = await api(app.url, 'POST', `/api/fruit/${pub[5]}/unpublish`, { token: owner.token });
      expect(off.json).toMatchObject({ ok: true, fruit_id: pub[5], visibility: 'private' });
      const gone = await api(app.url, 'POST', '/api/fruit/scan/choose', { form: { scan_token: s.json.scan_token, fruit_id: pub[5]! } });
      expect(gone.status).toBe(404);
      expect((await fetch(app.url + photoUrl)).status).toBe(404);
      const r = await post(app, '/api/fruit/lookup', photoForm([q[916]!]));
      expect(r.json.candidates.map((c: { fruit_id: string }) => c.fruit_id)).not.toContain(pub[5]);
      // The owner still sees their own photo with a token.
      expect((await fetch(app.url + photoUrl, { headers: { authorization: `Bearer ${owner.token}` } })).status).toBe(200);
      await api(app.url, 'POST', `/api/fruit/${pub[5]}/publish`, { token: owner.token });
    });
  });
}
