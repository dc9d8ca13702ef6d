import { spawn } from 'node:child_process';
import sharp, { type Sharp } from 'sharp';
import type { OcrEngine, OcrRead } from '../../ports/ocr.port.js';

export interface TesseractOptions {
  /** The tesseract executable (Debian's `tesseract-ocr`). */
  bin: string;
  /** Language data, e.g. `vie+eng`. */
  langs: string;
  /** A read that takes longer is killed and counts as unavailable. */
  timeoutMs: number;
  /** The longer side a photo is brought down to before anything else (printed text needs no more). */
  maxSide: number;
}

/** Row-sum variance of a thresholded image: largest when text lines run level (dark rows, light gaps). */
async function levelness(small: Sharp, angle: number): Promise<number> {
  const { data, info } = await small
    .clone()
    .rotate(angle, { background: '#ffffff' })
    .threshold(140)
    .raw()
    .toBuffer({ resolveWithObject: true });
  const rows: number[] = [];
  for (let y = 0; y < info.height; y++) {
    let dark = 0;
    for (let x = 0; x < info.width; x++) if (data[(y * info.width + x) * info.channels] === 0) dark++;
    rows.push(dark);
  }
  const mean = rows.reduce((a, b) => a + b, 0) / rows.length;
  return rows.reduce((a, b) => a + (b - mean) ** 2, 0) / rows.length;
}

/**
 * The turn that levels the text lines, searched over ±15° on a small copy (tesseract itself
 * only copes with a few degrees of skew, and a hand-held label photo is often turned more).
 */
async function deskewAngle(grey: Buffer): Promise<number> {
  const small = sharp(grey).resize({ width: 400 });
  // Level unless a turn does strictly better: a blank or evenly textured photo stays as it is.
  let best = { angle: 0, score: await levelness(small, 0) };
  for (let coarse = -15; coarse <= 15; coarse += 3) {
    if (coarse === 0) continue;
    const score = await levelness(small, coarse);
    if (score > best.score) best = { angle: coarse, score };
  }
  for (const fine of [-2, -1, 1, 2]) {
    const angle = best.angle + fine;
    const score = await levelness(small, angle);
    if (score > best.score) best = { angle, score };
  }
  return best.angle;
}

/**
 * Cleans a phone photo for tesseract: upright by EXIF, no longer than `maxSide` on its longer side
 * (a photo of tens of megapixels costs OCR time and memory in proportion and reads no better),
 * grey, contrast stretched, speckle noise removed by a median filter, levelled, at least 1500 px
 * wide, then a lossless PNG. The PNG says 72 dpi, so the CLI is told the real scale with --dpi.
 */
export async function prepare(image: Buffer, maxSide: number): Promise<Buffer> {
  const grey = await sharp(image, { failOn: 'none', sequentialRead: true })
    .rotate()
    .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
    .greyscale()
    .normalise()
    .median(3)
    .png()
    .toBuffer();
  const angle = await deskewAngle(grey);
  const meta = await sharp(grey).metadata();
  const level = sharp(grey).rotate(angle, { background: '#ffffff' });
  return ((meta.width ?? 0) < 1500 ? level.resize({ width: 1500 }) : level).png().toBuffer();
}

/** Runs the CLI with the image on stdin and the text on stdout. Resolves null when it cannot run. */
function runCli(opts: TesseractOptions, png: Buffer): Promise<string | null> {
  return new Promise((resolve) => {
    let out = '';
    let settled = false;
    const done = (v: string | null) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(v);
      }
    };
    // One OpenMP thread: on a small shared machine tesseract's thread pool only adds contention.
    const child = spawn(opts.bin, ['stdin', 'stdout', '-l', opts.langs, '--psm', '3', '--dpi', '300'], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { ...process.env, OMP_THREAD_LIMIT: '1' },
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done(null);
    }, opts.timeoutMs);
    child.on('error', () => done(null)); // ENOENT: not installed
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      out += d;
    });
    child.stdout.on('error', () => done(null));
    child.stdin.on('error', () => undefined); // the child may exit before reading everything
    child.on('close', (code) => done(code === 0 ? out : null));
    child.stdin.end(png);
  });
}

/**
 * OCR through the tesseract command line. Whether the engine exists is learnt from the first
 * read (a missing binary or missing language data makes every read `unavailable`, spec reason
 * `ocr_unavailable`), never assumed from configuration.
 */
export function createTesseractOcr(opts: TesseractOptions): OcrEngine {
  return {
    kind: 'tesseract',
    async read(image: Buffer): Promise<OcrRead> {
      let png: Buffer;
      try {
        png = await prepare(image, opts.maxSide);
      } catch {
        return { state: 'read', text: '' }; // undecodable pixels: nothing to read, the engine is fine
      }
      const text = await runCli(opts, png);
      return text === null ? { state: 'unavailable' } : { state: 'read', text };
    },
  };
}

/** The engine when OCR is switched off (OCR_ENGINE=none): every read is unavailable. */
export const noOcr: OcrEngine = { kind: 'none', read: async () => ({ state: 'unavailable' }) };
