import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * A synthetic H.264 clip from ffmpeg's `testsrc2` (no files read), `seconds` long at `width`×`height`.
 * Low frame rate and fast preset keep even a long clip cheap to make.
 */
export async function syntheticClip(seconds: number, width = 320, height = 240, fps = 5): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-clip-'));
  try {
    const out = path.join(dir, 'clip.mp4');
    execFileSync('ffmpeg', [
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      `testsrc2=size=${width}x${height}:rate=${fps}:duration=${seconds}`,
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
      '-y',
      out,
    ]);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Multipart body with one video in `file`, plus plain fields. */
export function videoForm(clip: Buffer, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([clip], { type: 'video/mp4' }), 'clip.mp4');
  return form;
}
