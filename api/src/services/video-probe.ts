/**
 * Video limits, checked with ffprobe BEFORE anything is stored or decoded: a long 1080p clip once
 * held a worker for a long while before failing. ffprobe reads only the container headers, so
 * refusing is quick (docs/security.md, "Hardening"); a file that merely has `ftyp` at offset 4 but no video stream is refused.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '../../../shared/src/domain/errors.js';

export interface VideoLimits {
  maxSeconds: number;
  maxPixels: number;
}

interface Probe {
  duration: number;
  /** Every video stream, not only `v:0`: a decoder may pick any of them (a `v:1` at 7680×4320 once was). */
  frames: Array<{ width: number; height: number }>;
}

const PROBE_TIMEOUT_MS = 15_000;

function ffprobe(file: string): Promise<Probe | null> {
  return new Promise((resolve) => {
    const p = spawn(
      'ffprobe',
      ['-v', 'error', '-select_streams', 'v', '-show_entries', 'stream=width,height,duration:format=duration', '-of', 'json', file],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    let out = '';
    const timer = setTimeout(() => p.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    p.stdout.on('data', (d) => (out += d));
    p.on('error', () => resolve(null));
    p.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return resolve(null);
      try {
        const j = JSON.parse(out) as {
          streams?: Array<{ width?: number; height?: number; duration?: string }>;
          format?: { duration?: string };
        };
        const streams = j.streams ?? [];
        const first = streams[0];
        if (!first?.width || !first.height) return resolve(null);
        // The longest stream counts when the container states no duration of its own.
        const duration = Number(j.format?.duration ?? Math.max(...streams.map((s) => Number(s.duration) || 0)));
        const frames = streams.map((s) => ({ width: s.width ?? 0, height: s.height ?? 0 }));
        resolve({ duration: Number.isFinite(duration) ? duration : 0, frames });
      } catch {
        resolve(null);
      }
    });
  });
}

/** 422 naming the limit when the video is too long, too large per frame, or not a readable video at all. */
export async function checkVideo(bytes: Buffer, limits: VideoLimits, field: string): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-probe-'));
  try {
    const file = path.join(dir, 'video');
    await writeFile(file, bytes);
    const p = await ffprobe(file);
    if (!p) throw new AppError(422, 'video_undecodable', { field, reason: 'no_video_stream' });
    if (p.duration > limits.maxSeconds) {
      throw new AppError(422, 'video_too_long', { field, got_s: Math.round(p.duration), max_s: limits.maxSeconds, reason: 'duration' });
    }
    const largest = p.frames.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
    if (largest.width * largest.height > limits.maxPixels) {
      throw new AppError(422, 'video_too_big_frame', {
        field,
        got: `${largest.width}×${largest.height}`,
        max: `${limits.maxPixels} px`,
        reason: 'resolution',
      });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
