import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticClip } from '../../../test/support/video.js';
import { outputSize, pickFrames, probe, streamFrames, SurveyVideoError } from './frame-stream.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'frame-stream-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

async function collect(file: string, o = { fps: 5, maxSide: 960, maxSeconds: 60 }) {
  const out = [];
  for await (const f of streamFrames(file, o)) out.push({ size: f.rgb.length, width: f.width, height: f.height, index: f.index, at: f.at });
  return out;
}

describe('streamed frames', () => {
  it('hands out every sampled frame as raw RGB, one at a time, in order', async () => {
    const file = path.join(dir, 'clip.mp4');
    await writeFile(file, await syntheticClip(2, 320, 240, 10));
    const frames = await collect(file);
    expect(frames).toHaveLength(10);
    expect(frames.every((f) => f.size === 320 * 240 * 3 && f.width === 320)).toBe(true);
    expect(frames.map((f) => f.index)).toEqual([...Array(10).keys()]);
    expect(frames[5]!.at).toBeCloseTo(1);
  });

  it('refuses a stream with no declared length that runs past the limit', async () => {
    const file = path.join(dir, 'endless.mkv');
    await writeFile(
      file,
      execFileSync('ffmpeg', [
        '-v',
        'error',
        '-f',
        'lavfi',
        '-i',
        'testsrc2=size=160x120:rate=5:duration=6',
        '-c:v',
        'mjpeg',
        '-f',
        'matroska',
        'pipe:1',
      ]),
    );
    const err = await collect(file, { fps: 5, maxSide: 960, maxSeconds: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SurveyVideoError);
    expect((err as SurveyVideoError).code).toBe('survey_video_endless');
  });

  it('refuses bytes that are no video', async () => {
    const file = path.join(dir, 'broken.mp4');
    await writeFile(file, Buffer.concat([Buffer.from('\0\0\0\x18ftypisom'), Buffer.alloc(2048, 7)]));
    const err = await collect(file).catch((e: unknown) => e);
    expect((err as SurveyVideoError).code).toBe('video_undecodable');
  });

  it('reads the asked frames again at another size, the same frames as the stream handed out', async () => {
    const file = path.join(dir, 'pick.mp4');
    await writeFile(file, await syntheticClip(3, 640, 360, 10));
    const small = new Map<number, Buffer>();
    for await (const f of streamFrames(file, { fps: 5, maxSide: 320, maxSeconds: 60 })) small.set(f.index, f.rgb);
    const picked = [];
    for await (const f of pickFrames(file, { fps: 5, maxSide: 640, indices: [11, 3, 7, 3], info: await probe(file) })) picked.push(f);
    expect(picked.map((f) => [f.index, f.width, f.height, f.rgb.length])).toEqual([3, 7, 11].map((i) => [i, 640, 360, 640 * 360 * 3]));
    // Shrunk to the stream's size, each picked frame is closest to the streamed frame of its own index.
    const diff = (a: Buffer, b: Buffer) => a.reduce((s, v, i) => s + Math.abs(v - b[i]!), 0) / a.length;
    for (const f of picked) {
      const shrunk = await sharp(f.rgb, { raw: { width: 640, height: 360, channels: 3 } })
        .resize(320, 180)
        .raw()
        .toBuffer();
      const d = [...small.entries()].map(([i, rgb]) => ({ i, d: diff(shrunk, rgb) })).sort((a, b) => a.d - b.d);
      expect(d[0]!.i).toBe(f.index);
    }
  });

  it('keeps even output sizes under the long-side cap', () => {
    expect(outputSize(1280, 720, 960)).toEqual({ width: 960, height: 540 });
    expect(outputSize(321, 241, 960)).toEqual({ width: 322, height: 242 });
  });
});
