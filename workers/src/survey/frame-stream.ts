/**
 * Frames of a video, streamed: ffmpeg decodes to raw RGB on a pipe and each frame is handed out
 * as it arrives, so a long drone pass never sits decoded in memory (one frame at a time, plus
 * the pipe's buffer). The decoder is killed when the reader stops early or fails.
 *
 * ```ts
 * for await (const f of streamFrames('/tmp/v.mp4', { fps: 10, maxSide: 960, maxSeconds: 120 })) {
 *   f.rgb; f.width; f.height; f.index; f.at;   // at: seconds into the video
 * }
 * ```
 * `pickFrames` reads a few of those frames again at another size (the survey's crops are cut at
 * the video's own resolution). Errors (all unrecoverable): `SurveyVideoError` with code `video_undecodable` (not a video,
 * damaged), `survey_no_frames` (nothing decodable: a zero-length video), or
 * `survey_video_endless` (more frames than `maxSeconds` allows: an endless or over-long stream).
 */
import { spawn } from 'node:child_process';

export class SurveyVideoError extends Error {
  readonly unrecoverable = true;
  constructor(
    readonly code: 'video_undecodable' | 'survey_no_frames' | 'survey_video_endless',
    detail: string,
    readonly params: Record<string, unknown> = {},
  ) {
    super(detail);
    this.name = 'SurveyVideoError';
  }
}

export interface StreamOptions {
  /** Frames per second to sample (never more than the video has). */
  fps: number;
  /** Longest side of the frames handed out. */
  maxSide: number;
  /** Refuse the video once it runs past this many seconds (its declared length or its frames). */
  maxSeconds: number;
}

export interface StreamFrame {
  rgb: Buffer;
  width: number;
  height: number;
  index: number;
  at: number;
}

export interface VideoInfo {
  width: number;
  height: number;
  /** Declared length in seconds; 0 when the container does not say. */
  duration: number;
  fps: number;
}

const PROBE_TIMEOUT_MS = 15_000;

export function probe(file: string): Promise<VideoInfo> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      'ffprobe',
      [
        '-v',
        'error',
        '-select_streams',
        'v:0',
        '-show_entries',
        'stream=width,height,avg_frame_rate,r_frame_rate,duration:format=duration',
        '-of',
        'json',
        file,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    let out = '';
    const timer = setTimeout(() => p.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    p.stdout.on('data', (d) => (out += d));
    p.stdout.on('error', () => undefined);
    p.on('error', (e) => reject(new SurveyVideoError('video_undecodable', `ffprobe: ${e.message}`)));
    p.on('close', (code) => {
      clearTimeout(timer);
      try {
        if (code !== 0) throw new Error(`ffprobe exited ${code}`);
        const j = JSON.parse(out) as { streams?: Array<Record<string, string | number>>; format?: { duration?: string } };
        const s = j.streams?.[0];
        if (!s?.width || !s.height) throw new Error('no video stream');
        const rate = (v: unknown) => {
          const [a, b] = String(v ?? '0/1')
            .split('/')
            .map(Number);
          return a && b ? a / b : 0;
        };
        const duration = Number(j.format?.duration ?? s.duration);
        resolve({
          width: Number(s.width),
          height: Number(s.height),
          duration: Number.isFinite(duration) && duration > 0 ? duration : 0,
          fps: rate(s.avg_frame_rate) || rate(s.r_frame_rate) || 25,
        });
      } catch (e) {
        reject(new SurveyVideoError('video_undecodable', `ffprobe: ${(e as Error).message}`));
      }
    });
  });
}

/** Even output size with the long side at most `maxSide` (yuv sources need even sizes). */
export function outputSize(w: number, h: number, maxSide: number): { width: number; height: number } {
  const s = Math.min(1, maxSide / Math.max(w, h));
  const even = (x: number) => Math.max(2, 2 * Math.round((x * s) / 2));
  return { width: even(w), height: even(h) };
}

/** Frames per second the survey samples: the asked rate, never more than the video has. */
export function sampledFps(asked: number, info: VideoInfo): number {
  return Math.min(asked, info.fps);
}

/**
 * Raw RGB frames of `size` bytes from one ffmpeg run (`args` write rawvideo to pipe:1), handed out
 * as they arrive; ffmpeg is killed when the reader stops early or fails. A run that exits badly
 * is `video_undecodable`; how many frames came before it is in the detail.
 */
async function* ffmpegFrames(args: string[], size: number): AsyncGenerator<Buffer> {
  const ff = spawn('ffmpeg', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let spawnError: Error | null = null;
  ff.stderr.on('data', (d) => (stderr = (stderr + d).slice(-2000)));
  ff.stderr.on('error', () => undefined);
  ff.stdout.on('error', () => undefined);
  ff.on('error', (e) => (spawnError = e));
  const exited = new Promise<number | null>((resolve) => ff.on('close', (code) => resolve(code)));
  let count = 0;
  let pending: Buffer[] = [];
  let have = 0;
  try {
    for await (const chunk of ff.stdout as AsyncIterable<Buffer>) {
      pending.push(chunk);
      have += chunk.length;
      while (have >= size) {
        const all = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
        const rgb = Buffer.from(all.subarray(0, size));
        pending = have > size ? [all.subarray(size)] : [];
        have -= size;
        count++;
        yield rgb;
      }
    }
    const code = await exited;
    if (spawnError) throw new SurveyVideoError('video_undecodable', `ffmpeg: ${(spawnError as Error).message}`);
    if (code !== 0 && count === 0) throw new SurveyVideoError('video_undecodable', `ffmpeg: ${stderr.split('\n')[0] ?? code}`);
    // A stream damaged part way: refuse it whole rather than survey half a paddock.
    if (code !== 0)
      throw new SurveyVideoError('video_undecodable', `ffmpeg failed after ${count} frames: ${stderr.split('\n')[0] ?? code}`);
  } finally {
    if (ff.exitCode === null && ff.signalCode === null) ff.kill('SIGKILL');
  }
}

/** `info`: the video's probe when the caller has it already (it is read again otherwise). */
export async function* streamFrames(file: string, o: StreamOptions & { info?: VideoInfo }): AsyncGenerator<StreamFrame> {
  const info = o.info ?? (await probe(file));
  if (info.duration > o.maxSeconds)
    throw new SurveyVideoError('survey_video_endless', 'declared length over the limit', { max_s: o.maxSeconds });
  const fps = sampledFps(o.fps, info);
  const { width, height } = outputSize(info.width, info.height, o.maxSide);
  // One frame past the limit is enough to know the stream is too long; ffmpeg stops there.
  const maxFrames = Math.ceil(o.maxSeconds * fps) + 1;
  const args = [
    '-v',
    'error',
    '-nostdin',
    '-i',
    file,
    '-vf',
    `fps=${fps},scale=${width}:${height}`,
    '-frames:v',
    String(maxFrames),
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    'pipe:1',
  ];
  let index = 0;
  for await (const rgb of ffmpegFrames(args, width * height * 3)) {
    if (index + 1 >= maxFrames) throw new SurveyVideoError('survey_video_endless', 'frames past the limit', { max_s: o.maxSeconds });
    yield { rgb, width, height, index, at: index / fps };
    index++;
  }
  if (index === 0) throw new SurveyVideoError('survey_no_frames', 'no frame decoded');
}

/**
 * Some of the frames `streamFrames` handed out, read again at another size (the survey cuts its
 * crops from the video's own resolution while it detects on smaller frames): the same `fps`
 * sampling, then ffmpeg's `select` keeps only the frames numbered in `indices` and scales just
 * those. Streamed in index order, one frame at a time; ffmpeg stops after the last one. A video
 * that no longer gives every asked frame is `video_undecodable`, as a damaged one is.
 */
export async function* pickFrames(
  file: string,
  o: { fps: number; maxSide: number; indices: readonly number[]; info: VideoInfo },
): AsyncGenerator<StreamFrame> {
  const want = [...new Set(o.indices)].sort((a, b) => a - b);
  if (want.length === 0) return;
  const fps = sampledFps(o.fps, o.info);
  const { width, height } = outputSize(o.info.width, o.info.height, o.maxSide);
  // Quoted, so the filter graph reads the commas as the expression's own.
  const select = `select='${want.map((n) => `eq(n,${n})`).join('+')}'`;
  // passthrough: the raw output must not repeat frames to fill the gaps select leaves.
  const args = [
    '-v',
    'error',
    '-nostdin',
    '-i',
    file,
    '-vf',
    `fps=${fps},${select},scale=${width}:${height}`,
    '-fps_mode',
    'passthrough',
    '-frames:v',
    String(want.length),
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    'pipe:1',
  ];
  let k = 0;
  for await (const rgb of ffmpegFrames(args, width * height * 3)) {
    if (k >= want.length) break;
    const index = want[k++]!;
    yield { rgb, width, height, index, at: index / fps };
  }
  if (k < want.length) throw new SurveyVideoError('video_undecodable', `second read gave ${k} of ${want.length} frames`);
}
