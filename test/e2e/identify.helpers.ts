import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type Mode, type TestApp } from '../support/app.js';
import { otherView, photoForm, textureImage } from '../support/images.js';

/** Three enrolment views of tree `seed` and one unseen view for the query. */
export async function views(seed: number) {
  const surface = await textureImage(seed, 512);
  const enrol = await Promise.all([1, 2, 3].map((k) => otherView(surface, seed * 10 + k)));
  return { enrol, query: await otherView(surface, seed * 10 + 9) };
}

/** A multipart POST with a token; `api()` sends FormData as it is. */
export const post = (app: TestApp, path: string, token: string, form: FormData) => api(app.url, 'POST', path, { token, body: form });

/** How many trees each account enrols, and how many of A's are asked per test. */
export interface StorySize {
  aTrees: number;
  bTrees: number;
  perTest: number;
}

/** The scenario as the service was specified with: 20 trees for A, 5 for B. */
export const FULL_STORY: StorySize = { aTrees: 20, bTrees: 5, perTest: 5 };

/**
 * The identify story in one mode: A's trees, B's trees, one tree nobody enrolled. One spec file per
 * mode (identify.spec.ts, identify.distributed.spec.ts), so the two run side by side.
 */
export function identifyTreesStory(mode: Mode, size: StorySize = FULL_STORY): void {
  describe(`identify trees end to end (${mode})`, () => {
    const A_TREES = size.aTrees;
    const B_TREES = size.bTrees;
    const UNSEEN = A_TREES + B_TREES + 1;
    const starts = Array.from({ length: Math.ceil(A_TREES / size.perTest) }, (_, i) => 1 + i * size.perTest);
    let app: TestApp;
    let a: { token: string };
    let b: { token: string };
    const treeOf = new Map<number, string>();
    const queries = new Map<number, Buffer>();

    beforeAll(async () => {
      app = await startTestApp({ mode });
      a = await signup(app.url, 'owner_a');
      b = await signup(app.url, 'owner_b');
      // Two enrolments in flight at a time: the service runs two jobs at once, so this halves the
      // set-up on a loaded machine without changing what is enrolled.
      const enrolOne = async (seed: number) => {
        const v = await views(seed);
        queries.set(seed, v.query);
        // Seeds 1..A_TREES belong to A, the next B_TREES to B, and the last is never enrolled.
        if (seed === UNSEEN) return;
        const owner = seed <= A_TREES ? a : b;
        const r = await post(app, '/api/enroll', owner.token, photoForm(v.enrol, { species: 'durian', farm_id: 'farm-a' }));
        expect(r.status).toBe(200);
        treeOf.set(seed, r.json.tree_id);
      };
      for (let seed = 1; seed <= UNSEEN; seed += 2)
        await Promise.all([enrolOne(seed), ...(seed + 1 <= UNSEEN ? [enrolOne(seed + 1)] : [])]);
    }, 300_000);
    afterAll(async () => {
      await app?.stop();
    });

    // A few identifications per test, so no single test holds all the queries' worth of CPU.
    it.each(starts)(`finds each of A's trees from an unseen view (trees %i to +${size.perTest - 1})`, async (from) => {
      for (let seed = from; seed < from + size.perTest && seed <= A_TREES; seed++) {
        const r = await post(app, '/api/identify', a.token, photoForm([queries.get(seed)!]));
        expect(r.status).toBe(200);
        expect(r.json.verdict, `tree ${seed}`).toBe('match');
        expect(r.json.match.individual_id).toBe(treeOf.get(seed));
        expect(r.json.match.photos.length).toBeGreaterThan(0);
      }
    });

    it("never answers with B's trees for A, even for photos of B's trees", async () => {
      const bTrees = new Set(Array.from({ length: B_TREES }, (_, i) => treeOf.get(A_TREES + 1 + i)));
      for (let seed = A_TREES + 1; seed <= A_TREES + B_TREES; seed++) {
        const r = await post(app, '/api/identify', a.token, photoForm([queries.get(seed)!]));
        expect(r.status).toBe(200);
        expect(r.json.verdict, `B's tree ${seed}`).not.toBe('match');
        for (const c of r.json.candidates) expect(bTrees.has(c.individual_id)).toBe(false);
      }
      const own = await post(app, '/api/identify', b.token, photoForm([queries.get(A_TREES + 1)!]));
      expect(own.json.match?.individual_id).toBe(treeOf.get(A_TREES + 1));
    });

    it("matches B's tree for A only while B grants A access", async () => {
      const bTree = treeOf.get(A_TREES + 1);
      const probe = () => post(app, '/api/identify', a.token, photoForm([queries.get(A_TREES + 1)!]));
      const me = await api(app.url, 'GET', '/api/me', { token: a.token });
      const granted = await api(app.url, 'POST', '/api/grant', {
        token: b.token,
        json: { grantee: me.json.account.username, access: 'read' },
      });
      expect(granted.status).toBe(200);
      expect((await probe()).json.match?.individual_id).toBe(bTree);
      const revoked = await api(app.url, 'POST', '/api/grant/revoke', { token: b.token, json: { grantee: me.json.account.username } });
      expect(revoked.status).toBe(200);
      const after = await probe();
      expect(after.json.verdict).not.toBe('match');
      expect(after.json.candidates.map((c: any) => c.individual_id)).not.toContain(bTree);
    });

    it('does not claim a match for a tree nobody enrolled', async () => {
      const r = await post(app, '/api/identify', a.token, photoForm([queries.get(UNSEEN)!]));
      expect(r.status).toBe(200);
      expect(r.json.ok).toBe(true);
      expect(['uncertain', 'no_match']).toContain(r.json.verdict);
    });

    it('records the model version on every descriptor', async () => {
      const rows = await app.container.db.query<{ model: string; model_version: string; n: number }>(
        'select model, model_version, count(*)::int as n from descriptors group by 1, 2',
      );
      expect(rows.rows).toHaveLength(1);
      expect(rows.rows[0]!.model).toBe('markless-texture');
      expect(rows.rows[0]!.n).toBe((A_TREES + B_TREES) * 3);
    });
  });
}
