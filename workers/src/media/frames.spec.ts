import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { extractFrames, UndecodableVideoError } from './frames.js';

/** A generated clip: a textured pan (testsrc2 moves) with a blurred stretch in the middle. */
async function makeClip(seconds: number): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-clip-'));
  const out = path.join(dir, 'clip.mp4');
  execFileSync('ffmpeg', [
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    `testsrc2=size=320x240:rate=10:duration=${seconds}`,
    '-vf',
    `boxblur=enable='between(t,1,2)':luma_radius=12`,
    '-pix_fmt',
    'yuv420p',
    '-y',
    out,
  ]);
  const bytes = await readFile(out);
  await rm(dir, { recursive: true, force: true });
  return bytes;
}

describe('video frame extraction', () => {
  it('keeps at most N sharp, distinct frames from a generated clip, in time order', async () => {
    const frames = await extractFrames(await makeClip(4), { maxFrames: 5 });
    expect(frames.length).toBeGreaterThanOrEqual(2);
    expect(frames.length).toBeLessThanOrEqual(5);
    for (let i = 1; i < frames.length; i++) expect(frames[i]!.at).toBeGreaterThan(frames[i - 1]!.at);
    const meta = await sharp(frames[0]!.jpeg).metadata();
    expect(meta.format).toBe('jpeg');
    expect(meta.width).toBe(320);
    // The blurred second (t in 1..2) never beats the sharp ones.
    expect(frames.every((f) => f.at < 1 || f.at > 2)).toBe(true);
  });

  it('refuses bytes that are not a video as unrecoverable', async () => {
    const err = await extractFrames(Buffer.from('not a video at all'), { maxFrames: 3 }).catch((e) => e);
    expect(err).toBeInstanceOf(UndecodableVideoError);
    expect(err.unrecoverable).toBe(true);
  });
});
