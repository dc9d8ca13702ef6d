import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Detection } from '../vision/detector.js';
import type { DecodedImage } from '../vision/intake.js';
import { SurveyVideoError } from './frame-stream.js';
import { surveyVideo, type SurveyCrop } from './pipeline.js';
import { mp4Encoder } from './testing/mp4-encoder.js';

/** A white rectangle (`w`×`h` at the source size) crossing a black frame, `step` px a frame. */
async function movingRect(width: number, height: number, frames: number, rect = { w: 160, h: 120, step: 40 }): Promise<Buffer> {
  const enc = mp4Encoder(width, height, 5, 10);
  for (let f = 0; f < frames; f++) {
    const rgb = Buffer.alloc(width * height * 3);
    const x0 = 100 + rect.step * f;
    const y0 = Math.round(height / 3);
    for (let y = y0; y < y0 + rect.h; y++) rgb.fill(255, (y * width + x0) * 3, (y * width + x0 + rect.w) * 3);
    await enc.write(rgb);
  }
  return enc.finish();
}

/** Boxes the white pixels of the frame it is shown, and records the frame sizes. */
function whiteBoxDetector() {
  const seen = new Set<string>();
  return {
    seen,
    async detect(img: DecodedImage): Promise<Detection[]> {
      seen.add(`${img.width}x${img.height}`);
      let x0 = Infinity,
        y0 = Infinity,
        x1 = -1,
        y1 = -1;
      for (let y = 0; y < img.height; y++) {
        for (let x = 0; x < img.width; x++) {
          if (img.rgb[(y * img.width + x) * 3]! < 128) continue;
          x0 = Math.min(x0, x);
          y0 = Math.min(y0, y);
          x1 = Math.max(x1, x);
          y1 = Math.max(y1, y);
        }
      }
      return x1 < 0 ? [] : [{ box: { x: x0, y: y0, w: x1 - x0 + 1, h: y1 - y0 + 1 }, score: 0.9, label: 'cow', cocoClass: 19 }];
    },
  };
}

/** Share of white pixels in a region of the crop. */
async function whiteShare(c: SurveyCrop, r: { x: number; y: number; w: number; h: number }): Promise<number> {
  const { data, info } = await sharp(c.jpeg).raw().toBuffer({ resolveWithObject: true });
  let white = 0,
    n = 0;
  for (let y = Math.max(0, Math.round(r.y)); y < Math.min(info.height, Math.round(r.y + r.h)); y++) {
    for (let x = Math.max(0, Math.round(r.x)); x < Math.min(info.width, Math.round(r.x + r.w)); x++) {
      n++;
      if (data[(y * info.width + x) * info.channels]! >= 128) white++;
    }
  }
  return white / Math.max(1, n);
}

let dir: string;
let clip720: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'survey-pipeline-'));
  clip720 = path.join(dir, 'clip720.mp4');
  await writeFile(clip720, await movingRect(1280, 720, 10));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const opts = { kind: 'animal' as const, fps: 5, cmc: false, views: { flip: false, tiles: false } };

describe('survey crops', () => {
  it('are cut at the source resolution while detection runs on the smaller frames', async () => {
    const d = whiteBoxDetector();
    const pass = await surveyVideo(clip720, { ...opts, maxSide: 640 }, { detector: d });
    expect([...d.seen]).toEqual(['640x360']);
    expect(pass).toMatchObject({ width: 640, height: 360, frames: 10 });
    expect(pass.tracks).toHaveLength(1);
    const crops = pass.tracks[0]!.crops;
    expect(crops.length).toBeGreaterThanOrEqual(2);
    for (const c of crops) {
      const meta = await sharp(c.jpeg).metadata();
      // The 160×120 rectangle with its 15% margins, at 1280×720 (it would be half that cut from the detection frames).
      expect(meta.width).toBeGreaterThanOrEqual(200);
      expect(meta.height).toBeGreaterThanOrEqual(150);
      expect(c.box.w).toBeGreaterThanOrEqual(155);
      expect(c.box.h).toBeGreaterThanOrEqual(115);
      // The same frame as detected (the rectangle moves 40 px a frame): white inside the box, black in the margin.
      expect(await whiteShare(c, { x: c.box.x + 4, y: c.box.y + 4, w: c.box.w - 8, h: c.box.h - 8 })).toBeGreaterThan(0.95);
      expect(await whiteShare(c, { x: 0, y: 0, w: c.box.x - 3, h: meta.height! })).toBeLessThan(0.05);
      expect(await whiteShare(c, { x: c.box.x + c.box.w + 3, y: 0, w: meta.width!, h: meta.height! })).toBeLessThan(0.05);
    }
  });

  it('stop at cropSide, and come from the detection frames when the video is no larger', async () => {
    const capped = await surveyVideo(clip720, { ...opts, maxSide: 640, cropSide: 640 }, { detector: whiteBoxDetector() });
    const small = await sharp(capped.tracks[0]!.crops[0]!.jpeg).metadata();
    expect(small.width).toBeLessThan(120);
    const whole = await surveyVideo(clip720, { ...opts }, { detector: whiteBoxDetector() });
    expect(whole.width).toBe(960);
    // 960 detection frames, crops at the video's own 1280.
    expect((await sharp(whole.tracks[0]!.crops[0]!.jpeg).metadata()).width).toBeGreaterThanOrEqual(200);
  });

  it('fail the whole pass, with no tracks, when the video cannot be read again for them', async () => {
    const file = path.join(dir, 'vanishing.mp4');
    await writeFile(file, await movingRect(1280, 720, 10));
    // The file is cut short once the pass has read all ten frames: the crops' second read finds none.
    let read = 0;
    const onProgress = async (p: { frames_read: number }) => {
      if (p.frames_read === 10 && read === 0) {
        read = p.frames_read;
        await truncate(file, 0);
      }
    };
    const err = await surveyVideo(file, { ...opts, maxSide: 640 }, { detector: whiteBoxDetector(), onProgress, progressEvery: 10 }).catch(
      (e: unknown) => e,
    );
    expect(read).toBe(10);
    expect(err).toBeInstanceOf(SurveyVideoError);
    expect((err as SurveyVideoError).code).toBe('video_undecodable');
  });
});
