import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ffmpeg from 'fluent-ffmpeg';
import sharp from 'sharp';
import { laplacianStats } from '../vision/intake.js';

export class UndecodableVideoError extends Error {
  readonly unrecoverable = true;
  readonly code = 'video_undecodable';
}

export interface FrameOptions {
  /** At most this many frames come back. */
  maxFrames: number;
  /** Candidates sampled per frame kept, to choose the sharp and distinct ones from. */
  oversample?: number;
  /** Longest side of the extracted frames. */
  side?: number;
  /** Frames ffmpeg may decode in all (VIDEO_MAX_FRAMES_DECODED); the sampling rate is chosen to stay under it. */
  maxDecoded?: number;
}

export interface Frame {
  jpeg: Buffer;
  /** Position in the video, seconds. */
  at: number;
  sharpness: number;
}

function probeDuration(file: string): Promise<number> {
  return new Promise((resolve, reject) =>
    ffmpeg.ffprobe(file, (err, data) => {
      if (err) return reject(new UndecodableVideoError(`ffprobe: ${err.message.split('\n')[0]}`));
      const d = Number(data.format?.duration);
      const hasVideo = data.streams?.some((s) => s.codec_type === 'video');
      if (!hasVideo) return reject(new UndecodableVideoError('no video stream'));
      resolve(Number.isFinite(d) && d > 0 ? d : 1);
    }),
  );
}

function sample(file: string, outDir: string, fps: number, side: number, maxDecoded: number): Promise<void> {
  return new Promise((resolve, reject) =>
    ffmpeg(file)
      // The first video stream only: by default ffmpeg picks the largest, which the API's probe caps but need not be the one meant.
      .outputOptions([
        '-map',
        '0:v:0',
        '-vf',
        `fps=${fps.toFixed(4)},scale='min(${side},iw)':-2`,
        '-q:v',
        '3',
        '-frames:v',
        String(maxDecoded),
      ])
      .output(path.join(outDir, 'f%05d.jpg'))
      .on('end', () => resolve())
      .on('error', (e: Error) => reject(new UndecodableVideoError(`ffmpeg: ${e.message.split('\n')[0]}`)))
      .run(),
  );
}

/** Sharpness (variance of the Laplacian, the same measure as photo intake) and a 16×16 thumbnail for telling frames apart. */
async function measure(jpeg: Buffer): Promise<{ sharpness: number; thumb: Buffer }> {
  const { data, info } = await sharp(jpeg).greyscale().resize(256, 256, { fit: 'inside' }).raw().toBuffer({ resolveWithObject: true });
  const thumb = await sharp(jpeg).greyscale().resize(16, 16, { fit: 'fill' }).raw().toBuffer();
  return { sharpness: laplacianStats(data, info.width, info.height).sharpness, thumb };
}

const distance = (a: Buffer, b: Buffer) => {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += Math.abs(a[i]! - b[i]!);
  return d / a.length;
};

/**
 * Pull frames out of a video with ffmpeg, then keep the sharpest ones that differ from each other:
 * a drone pass or a phone pan repeats near-identical frames, and blurred ones only add noise.
 */
export async function extractFrames(video: Buffer, o: FrameOptions): Promise<Frame[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-frames-'));
  try {
    const file = path.join(dir, 'input');
    await writeFile(file, video);
    const duration = await probeDuration(file);
    const want = o.maxFrames * (o.oversample ?? 4);
    const maxDecoded = Math.min(400, o.maxDecoded ?? 400);
    await sample(file, dir, Math.max(0.2, Math.min(want, maxDecoded) / duration), o.side ?? 960, maxDecoded);
    const names = (await readdir(dir)).filter((f) => f.endsWith('.jpg')).sort();
    if (!names.length) throw new UndecodableVideoError('no frames decoded');
    const step = duration / names.length;
    const frames = await Promise.all(
      names.map(async (n, i) => {
        const jpeg = await readFile(path.join(dir, n));
        return { jpeg, at: i * step, ...(await measure(jpeg)) };
      }),
    );
    return selectFrames(frames, o.maxFrames);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Greedy: sharpest first, skipping any frame too close to one already kept; back in time order. */
export function selectFrames<T extends { sharpness: number; thumb: Buffer; at: number; jpeg: Buffer }>(
  frames: T[],
  max: number,
  minDistance = 6,
): Frame[] {
  const kept: T[] = [];
  for (const f of [...frames].sort((a, b) => b.sharpness - a.sharpness)) {
    if (kept.length >= max) break;
    if (kept.every((k) => distance(k.thumb, f.thumb) >= minDistance)) kept.push(f);
  }
  return kept.sort((a, b) => a.at - b.at).map(({ jpeg, at, sharpness }) => ({ jpeg, at, sharpness }));
}
