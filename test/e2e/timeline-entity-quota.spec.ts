/**
 * Issue 21: the contributor quota was per author, so 5 fresh accounts × 20 events × 15 KB grew
 * one published tree's pending timeline from 0.3 to 1.9 MB. Now all non-owners together are
 * capped per entity (TIMELINE_PENDING_MAX_PER_ENTITY, TIMELINE_PENDING_MAX_BYTES_PER_ENTITY).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { enrollTree } from './timeline.helpers.js';

describe('timeline: what strangers can add to one entity, all together (embedded)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic', mode: 'embedded' });
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
  });

  const post = (tree: string, token: string, body: unknown, lang = 'en') =>
    api(app.url, 'POST', `/api/tree/${tree}/event`, { token, json: body, headers: { 'accept-language': lang } });
  const pendingBytes = async (tree: string) =>
    Number(
      (
        await app.container.db.query<{ b: number }>(
          `select coalesce(sum(octet_length(body::text)), 0)::bigint as b from timeline_submissions where entity_id = $1 and status = 'pending'`,
          [tree],
        )
      ).rows[0]!.b,
    );

  it('5 fresh accounts × 20 events × 15 KB stop at the entity cap with 429 and a whole sentence; the owner still writes; a decision frees room', async () => {
    const owner = await signup(app.url, 'owner');
    const tree = (await enrollTree(app.url, owner.token, 331)).tree_id as string;
    expect((await api(app.url, 'POST', `/api/tree/${tree}/publish`, { token: owner.token })).status).toBe(200);
    const strangers = [];
    for (const i of [1, 2, 3, 4, 5]) strangers.push(await signup(app.url, `contrib${i}`));
    const before = (await api(app.url, 'GET', `/api/tree/${tree}/timeline`, { token: owner.token })).text.length;
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof api>> | undefined;
    const accepted: string[] = [];
    for (const s of strangers) {
      for (let i = 0; i < 20; i++) {
        const r = await post(tree, s.token, { type: 'note', text: 'x'.repeat(15_000), i });
        statuses.push(r.status);
        if (r.status === 200) accepted.push(r.json.event.event_id);
        else refused ??= r;
      }
    }
    expect(new Set(statuses)).toEqual(new Set([200, 429]));
    // The default byte cap (256 KB) is what stops 15 KB events: 17 fit, whoever sent them.
    expect(accepted.length).toBe(17);
    expect(await pendingBytes(tree)).toBeLessThanOrEqual(262_144);
    expect(refused!.status).toBe(429);
    expect(refused!.json.code).toBe('event_entity_quota_exceeded');
    expect(refused!.json.error).toMatch(/^This entity already holds too many events waiting for its owner .*\.$/);
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const vi = await post(tree, strangers[4]!.token, { type: 'note', text: 'x'.repeat(15_000) }, 'vi');
    expect(vi.status).toBe(429);
    expect(vi.json.error).toMatch(/^Đối tượng này đã có quá nhiều sự kiện chờ chủ duyệt.*\.$/);
    const after = (await api(app.url, 'GET', `/api/tree/${tree}/timeline`, { token: owner.token })).text.length;
    expect(after - before).toBeLessThan(300_000);
    // The owner's own events are never capped by strangers.
    expect((await post(tree, owner.token, { type: 'note', text: 'owner' })).status).toBe(200);
    // Rejecting one frees room for the next stranger.
    const rej = await api(app.url, 'POST', `/api/tree/${tree}/event/${accepted[0]}/reject`, { token: owner.token, json: {} });
    expect(rej.status).toBe(200);
    expect((await post(tree, strangers[4]!.token, { type: 'note', text: 'y'.repeat(15_000) })).status).toBe(200);
  }, 240_000);

  it('caps the count too: many small events from many accounts stop at TIMELINE_PENDING_MAX_PER_ENTITY', async () => {
    const small = await startTestApp({ engine: 'deterministic', mode: 'embedded', env: { TIMELINE_PENDING_MAX_PER_ENTITY: '6' } });
    try {
      const owner = await signup(small.url, 'owner');
      const tree = (await enrollTree(small.url, owner.token, 332)).tree_id as string;
      expect((await api(small.url, 'POST', `/api/tree/${tree}/publish`, { token: owner.token })).status).toBe(200);
      const statuses: number[] = [];
      for (const i of [1, 2, 3]) {
        const s = await signup(small.url, `small${i}`);
        for (let i = 0; i < 3; i++)
          statuses.push((await api(small.url, 'POST', `/api/tree/${tree}/event`, { token: s.token, json: { type: 'note', i } })).status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429, 429]);
    } finally {
      await small.stop();
    }
  }, 240_000);
});
