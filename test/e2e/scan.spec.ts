import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { photoForm, textureImage } from '../support/images.js';

type User = { token: string; id: string };

async function enrollTree(app: TestApp, user: User, seed: number, species: string) {
  const form = photoForm([await textureImage(seed, 320)], { species, farm_id: 'farm-s' });
  const r = await fetch(`${app.url}/api/enroll`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` }, body: form });
  expect(r.status).toBe(200);
}

async function scan(app: TestApp, user: User, photo?: Buffer) {
  const r = await fetch(`${app.url}/api/scan`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.token}` },
    body: photoForm(photo ? [photo] : []),
  });
  return { status: r.status, json: (await r.json()) as any };
}

const confirm = (app: TestApp, user: User, scanToken: string, species: string) =>
  api(app.url, 'POST', '/api/scan/confirm', { token: user.token, form: { scan_token: scanToken, species } });

async function tokenRow(app: TestApp, owner: string) {
  const r = await app.container.db.query<{ consumed_at: Date | null; expires_at: Date }>(
    'select consumed_at, expires_at from scan_tokens where owner_id = $1 order by created_at desc limit 1',
    [owner],
  );
  return r.rows[0]!;
}

describe('tree scan tokens: every transition of the state table', () => {
  let app: TestApp;
  let owner: User;
  let other: User;
  let photo: Buffer;
  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic' });
    owner = await signup(app.url, 'scan');
    other = await signup(app.url, 'scan');
    await enrollTree(app, owner, 501, 'Sầu riêng');
    await enrollTree(app, owner, 502, 'sầu riêng ');
    await enrollTree(app, owner, 503, 'coffee_robusta');
    photo = await textureImage(777, 320);
  });
  afterAll(async () => app?.stop());

  it("none → issued: a token with the owner's species first, then the catalogue, need_confirm true", async () => {
    const r = await scan(app, owner, photo);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ ok: true, species_guess: 'Sầu riêng', need_confirm: true, scan_token: expect.any(String) });
    expect(r.json.top_k.slice(0, 2)).toEqual(['Sầu riêng', 'coffee_robusta']);
    expect(r.json.top_k).toHaveLength(5);
    // Durian is already offered under the owner's own spelling, and animals are never offered.
    expect(r.json.top_k).not.toContain('durian');
    expect(r.json.top_k).not.toContain('cattle');
    expect(r.json.candidates[0]).toEqual({ species: 'Sầu riêng', source: 'orchard', trees: 2 });
    // A newcomer with no trees gets the catalogue.
    const fresh = await scan(app, other, photo);
    expect(fresh.json.candidates.every((c: any) => c.source === 'catalog')).toBe(true);
    expect(fresh.json.species_guess).toBe(fresh.json.top_k[0]);
  });

  it('issues nothing without an accepted image or a sign-in', async () => {
    expect((await scan(app, owner)).status).toBe(422);
    expect((await scan(app, owner, Buffer.from('definitely not an image, just text'))).status).toBe(422);
    const truncated = (await textureImage(778, 320)).subarray(0, 400);
    expect((await scan(app, owner, truncated)).json.code).toBe('image_undecodable');
    const anon = await fetch(`${app.url}/api/scan`, { method: 'POST', body: photoForm([photo]) });
    expect(anon.status).toBe(401);
  });

  it('issued → unchanged: species not in top_k, wrong token, another owner, expired token', async () => {
    const issued = (await scan(app, owner, photo)).json;
    const notOffered = await confirm(app, owner, issued.scan_token, 'cattle');
    expect(notOffered.status).toBe(400);
    expect(notOffered.json).toMatchObject({ ok: false, code: 'scan_species_not_offered', error: expect.any(String) });
    const wrong = await confirm(app, owner, `${issued.scan_token}x`, 'Sầu riêng');
    expect(wrong.status).toBe(400);
    expect(wrong.json).toMatchObject({ ok: false, code: 'scan_token_invalid' });
    const foreign = await confirm(app, other, issued.scan_token, 'Sầu riêng');
    expect(foreign.status).toBe(400);
    expect(foreign.text).toBe(wrong.text);
    expect((await tokenRow(app, owner.id)).consumed_at).toBeNull();
    // Unchanged means still usable by its owner.
    const ok = await confirm(app, owner, issued.scan_token, 'SẦU RIÊNG');
    expect(ok.status).toBe(200);

    const late = (await scan(app, owner, photo)).json;
    await app.container.db.query(
      `update scan_tokens set expires_at = now() - interval '1 second' where owner_id = $1 and consumed_at is null`,
      [owner.id],
    );
    const before = await tokenRow(app, owner.id);
    const expired = await confirm(app, owner, late.scan_token, 'Sầu riêng');
    expect(expired.status).toBe(400);
    expect(expired.json).toMatchObject({ ok: false, code: 'scan_token_invalid' });
    expect(await tokenRow(app, owner.id)).toEqual(before);
  });

  it('issued → consumed: routing guidance to /api/identify with the species, and single use', async () => {
    const issued = (await scan(app, owner, photo)).json;
    const r = await confirm(app, owner, issued.scan_token, ' coffee_robusta ');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      ok: true,
      consumed: true,
      species: 'coffee_robusta',
      next: { method: 'POST', path: '/api/identify', fields: { species: 'coffee_robusta' } },
    });
    expect((await tokenRow(app, owner.id)).consumed_at).toBeInstanceOf(Date);
    const again = await confirm(app, owner, issued.scan_token, 'coffee_robusta');
    expect(again.status).toBe(400);
    expect(again.json.code).toBe('scan_token_invalid');
  });

  it('lets exactly one of two racing confirms consume a token', async () => {
    const issued = (await scan(app, owner, photo)).json;
    const results = await Promise.all([0, 1, 2].map(() => confirm(app, owner, issued.scan_token, 'Sầu riêng')));
    expect(results.map((x) => x.status).sort()).toEqual([200, 400, 400]);
  });
});
