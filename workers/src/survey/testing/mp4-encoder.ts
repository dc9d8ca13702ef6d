import { spawn } from 'node:child_process';

/**
 * Encodes raw RGB frames into a fragmented MP4 in memory with Debian's ffmpeg, for the generated
 * survey clips (tests and `bench:survey`). `write` waits for ffmpeg to drain, so a long clip never
 * piles up frames in memory; `finish` resolves with the file, or rejects with ffmpeg's own words.
 */
export function mp4Encoder(
  width: number,
  height: number,
  fps: number,
  crf: number,
): { write: (rgb: Buffer) => Promise<void>; finish: () => Promise<Buffer> } {
  const ff = spawn(
    'ffmpeg',
    [
      '-v',
      'error',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      '-s',
      `${width}x${height}`,
      '-r',
      String(fps),
      '-i',
      'pipe:0',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-crf',
      String(crf),
      '-pix_fmt',
      'yuv420p',
      '-f',
      'mp4',
      '-movflags',
      'frag_keyframe+empty_moov',
      'pipe:1',
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const chunks: Buffer[] = [];
  let stderr = '';
  ff.stdout.on('data', (d: Buffer) => chunks.push(d));
  ff.stderr.on('data', (d) => (stderr += d));
  ff.stdin.on('error', () => undefined);
  const done = new Promise<void>((resolve, reject) => {
    ff.on('error', reject);
    ff.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg ${code}: ${stderr}`))));
  });
  return {
    write: async (rgb) => {
      if (!ff.stdin.write(rgb)) await new Promise((r) => ff.stdin.once('drain', r));
    },
    finish: async () => {
      ff.stdin.end();
      await done;
      return Buffer.concat(chunks);
    },
  };
}
