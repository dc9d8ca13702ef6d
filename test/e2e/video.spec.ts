import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cidForBytes } from '../../shared/src/evidence/cid.js';
import { api, signup, startTestApp, type TestApp } from '../support/app.js';
import { otherView, photoForm, textureImage } from '../support/images.js';

/** A phone-like pass over a surface: the still texture panned for `seconds`, encoded as H.264 MP4. */
async function panClip(surface: Buffer, seconds = 3): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-pan-'));
  try {
    await writeFile(path.join(dir, 'still.jpg'), surface);
    execFileSync('ffmpeg', [
      '-loglevel',
      'error',
      '-loop',
      '1',
      '-i',
      path.join(dir, 'still.jpg'),
      '-t',
      String(seconds),
      '-r',
      '10',
      '-vf',
      "crop=420:420:x='t*25':y='t*12'",
      '-pix_fmt',
      'yuv420p',
      '-y',
      path.join(dir, 'clip.mp4'),
    ]);
    return await readFile(path.join(dir, 'clip.mp4'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const videoForm = (clip: Buffer, fields: Record<string, string> = {}) => {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([clip], { type: 'video/mp4' }), 'pass.mp4');
  return form;
};

describe('video routes (embedded)', () => {
  let app: TestApp;
  let token: string;
  const trees: string[] = [];
  const surfaces: Buffer[] = [];

  beforeAll(async () => {
    app = await startTestApp();
    token = (await signup(app.url)).token;
    for (const seed of [71, 72, 73]) {
      const surface = await textureImage(seed, 512);
      surfaces.push(surface);
      const enrol = await Promise.all([1, 2].map((k) => otherView(surface, seed * 10 + k)));
      const r = await fetch(`${app.url}/api/enroll`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: photoForm(enrol),
      });
      trees.push(((await r.json()) as any).tree_id);
    }
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
  });

  const post = (p: string, form: FormData) => api(app.url, 'POST', p, { token, body: form });

  it('identifies a tree from a video, fusing several frames', async () => {
    const r = await post('/api/identify/video', videoForm(await panClip(surfaces[1]!), { max_frames: '4' }));
    expect(r.status).toBe(200);
    expect(r.json.frames_used).toBeGreaterThanOrEqual(1);
    expect(r.json.frames_used).toBeLessThanOrEqual(4);
    expect(r.json.verdict).toBe('match');
    expect(r.json.match.individual_id).toBe(trees[1]);
  });

  it("adds a video's frames to a tree as views, outside its canonical record", async () => {
    const r = await post(`/api/tree/${trees[0]}/video`, videoForm(await panClip(surfaces[0]!), { max_frames: '3' }));
    expect(r.status).toBe(200);
    expect(r.json.frames_used).toBeGreaterThanOrEqual(1);
    const rows = await app.container.db.query<{ source: string; in_record: boolean; n: number }>(
      'select source, in_record, count(*)::int as n from images where individual_id = $1 group by 1, 2 order by 1',
      [trees[0]],
    );
    expect(rows.rows).toEqual([
      { source: 'enroll', in_record: true, n: 2 },
      { source: 'video', in_record: false, n: r.json.frames_used },
    ]);
  });

  it('stores a fruit video and returns the CID of its exact bytes', async () => {
    const clip = await panClip(surfaces[2]!, 2);
    const r = await post(`/api/tree/${trees[2]}/fruit_video`, videoForm(clip));
    expect(r.status).toBe(200);
    expect(r.json.cid).toBe(await cidForBytes(clip));
    expect(Buffer.compare((await app.container.blobs.get(r.json.cid))!, clip)).toBe(0);
  });

  it('refuses an undecodable video and another account’s tree', async () => {
    const fake = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(4000, 1)]);
    const bad = await post('/api/identify/video', videoForm(fake));
    expect(bad.status).toBe(422);
    expect(bad.json.code).toBe('video_undecodable');
    const stranger = await signup(app.url);
    const r = await fetch(`${app.url}/api/tree/${trees[0]}/video`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stranger.token}` },
      body: videoForm(await panClip(surfaces[0]!, 1)),
    });
    expect(r.status).toBe(404);
  });
});
