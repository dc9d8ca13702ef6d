import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { syntheticClip } from '../../../test/support/video.js';
import type { Detection, DetectOptions } from '../vision/detector.js';
import type { DecodedImage } from '../vision/intake.js';
import { surveyVideo } from './pipeline.js';
import type { Box } from './tracker.js';
import { detectViews, entireInTile, fuseViews, looksFor, onePerPlace, tilesOf } from './views.js';

const det = (box: Box, score: number, label = 'cow', cocoClass = 19): Detection => ({ box, score, label, cocoClass });

/** A black frame with white rectangles. */
function frame(width: number, height: number, rects: Box[]): DecodedImage {
  const rgb = Buffer.alloc(width * height * 3);
  for (const r of rects) for (let y = r.y; y < r.y + r.h; y++) rgb.fill(255, (y * width + r.x) * 3, (y * width + r.x + r.w) * 3);
  return { rgb, width, height };
}

/**
 * A detector that boxes every run of white columns it is shown (one box per run, full white
 * height), scored by `score(image, box)`: each look can be told apart by its size or by where the box falls.
 */
function whiteDetector(score: (img: DecodedImage, b: Box) => number) {
  const seen: { width: number; height: number }[] = [];
  return {
    seen,
    async detect(img: DecodedImage, _o: DetectOptions): Promise<Detection[]> {
      seen.push({ width: img.width, height: img.height });
      const white = (x: number, y: number) => img.rgb[(y * img.width + x) * 3] === 255;
      const cols = [...Array(img.width).keys()].map((x) => [...Array(img.height).keys()].filter((y) => white(x, y)));
      const out: Detection[] = [];
      for (let x = 0; x < img.width; x++) {
        if (!cols[x]!.length || (x > 0 && cols[x - 1]!.length)) continue;
        let x1 = x;
        while (x1 + 1 < img.width && cols[x1 + 1]!.length) x1++;
        const ys = cols.slice(x, x1 + 1).flat();
        const b = { x, y: Math.min(...ys), w: x1 - x + 1, h: Math.max(...ys) - Math.min(...ys) + 1 };
        out.push(det(b, score(img, b)));
      }
      return out;
    },
  };
}

describe('tiles of a frame', () => {
  it('cuts a 16:9 frame into two squares of its height, overlapping in the middle', () => {
    expect(tilesOf(960, 540)).toEqual([
      { x: 0, y: 0, side: 540 },
      { x: 420, y: 0, side: 540 },
    ]);
  });
  it('tiles an upright phone frame down its height', () => {
    expect(tilesOf(540, 960)).toEqual([
      { x: 0, y: 0, side: 540 },
      { x: 0, y: 420, side: 540 },
    ]);
  });
  it('cuts a wider frame into more squares, spread evenly', () => {
    expect(tilesOf(1280, 540).map((t) => t.x)).toEqual([0, 370, 740]);
  });
  it('leaves a 4:3 frame whole: its letterbox wastes a quarter of the input, not worth the looks', () => {
    expect(tilesOf(720, 540)).toEqual([]);
  });
});

describe('fusing the looks', () => {
  it('keeps the best score of one class at one place and leaves other classes to the class merge', () => {
    const b = { x: 100, y: 100, w: 80, h: 120 };
    const out = fuseViews([[det(b, 0.2)], [det({ ...b, x: 104 }, 0.7)], [det(b, 0.3, 'bear', 21)]]);
    expect(out.map((d) => [d.label, d.score])).toEqual([
      ['cow', 0.7],
      ['bear', 0.3],
    ]);
  });

  it('keeps one box per place across classes once they are summed: the better of a tight and a loose box', () => {
    const tight = det({ x: 315, y: 220, w: 70, h: 77 }, 0.9);
    const loose = det({ x: 280, y: 195, w: 110, h: 105 }, 0.6, 'horse', 17);
    const neighbour = det({ x: 420, y: 250, w: 100, h: 100 }, 0.5, 'horse', 17);
    expect(onePerPlace([loose, neighbour, tight])).toEqual([tight, neighbour]);
  });

  it('drops a tile box cut by a seam inside the frame, and a piece of an animal the whole frame sees crossing it', () => {
    const t = { x: 0, y: 0, side: 540 };
    const cut = det({ x: 480, y: 100, w: 58, h: 200 }, 0.9);
    const hindquarters = det({ x: 310, y: 110, w: 150, h: 250 }, 0.9);
    const whole = [det({ x: 300, y: 100, w: 400, h: 300 }, 0.8)];
    expect(entireInTile([cut, hindquarters], t, whole, 960, 540)).toEqual([]);
    // Two animals side by side inside the tile, boxed together by the whole frame: the tile's two boxes stay.
    const a = det({ x: 200, y: 250, w: 130, h: 210 }, 0.8);
    const b = det({ x: 310, y: 270, w: 130, h: 210 }, 0.6);
    expect(entireInTile([a, b], t, [det({ x: 200, y: 250, w: 240, h: 230 }, 0.8)], 960, 540)).toEqual([a, b]);
    // The frame's own border is no seam: an animal at the tile's outer edge is whole.
    const edge = det({ x: 0, y: 100, w: 60, h: 100 }, 0.5);
    expect(entireInTile([edge], t, [], 960, 540)).toEqual([edge]);
  });
});

describe('looking at a frame several ways', () => {
  it('maps the mirrored look back to the frame: the better look wins', async () => {
    // Sure of the animal only when it sits in the right half of what it is shown (the mirror).
    const d = whiteDetector((img, b) => (b.x > img.width / 2 ? 0.7 : 0.2));
    const out = await detectViews(d, frame(720, 540, [{ x: 100, y: 50, w: 20, h: 30 }]), {});
    expect(d.seen).toEqual([
      { width: 720, height: 540 },
      { width: 720, height: 540 },
    ]);
    expect(out).toHaveLength(1);
    expect(out[0]!.box).toEqual({ x: 100, y: 50, w: 20, h: 30 });
    expect(out[0]!.score).toBe(0.7);
  });

  it('finds in a tile, at the tile scale, what the whole frame misses, in frame pixels', async () => {
    const d = whiteDetector((img) => (img.width === img.height ? 0.8 : 0.1));
    const out = await detectViews(d, frame(960, 540, [{ x: 800, y: 100, w: 40, h: 60 }]), {}, { flip: false, tiles: true });
    expect(d.seen).toEqual([
      { width: 960, height: 540 },
      { width: 540, height: 540 },
      { width: 540, height: 540 },
    ]);
    expect(out.map((x) => [x.box, x.score])).toEqual([[{ x: 800, y: 100, w: 40, h: 60 }, 0.8]]);
  });

  it('keeps no piece of an animal straddling a seam: the other tile holds it whole', async () => {
    const d = whiteDetector((img) => (img.width === img.height ? 0.9 : 0.5));
    const out = await detectViews(d, frame(960, 540, [{ x: 500, y: 100, w: 100, h: 60 }]), {}, { flip: false, tiles: true });
    expect(out.map((x) => [x.box, x.score])).toEqual([[{ x: 500, y: 100, w: 100, h: 60 }, 0.9]]);
  });

  it('fails with the detector when one look fails', async () => {
    let calls = 0;
    const broken = { detect: async () => (calls++ === 1 ? Promise.reject(new Error('the model is gone')) : []) };
    await expect(detectViews(broken, frame(960, 540, []), {})).rejects.toThrow('the model is gone');
  });
});

describe('the survey pass', () => {
  it('takes four looks at each frame of a 16:9 video by default, one when asked for the whole frame only', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'survey-views-'));
    try {
      const file = path.join(dir, 'clip.mp4');
      await writeFile(file, await syntheticClip(1, 640, 360, 5));
      const shapes: string[] = [];
      const detector = { detect: async (img: DecodedImage) => (shapes.push(`${img.width}x${img.height}`), []) };
      const pass = await surveyVideo(file, { kind: 'animal', fps: 5 }, { detector });
      expect(shapes).toHaveLength(4 * pass.frames);
      expect(shapes.slice(0, 4).sort()).toEqual(['360x360', '360x360', '640x360', '640x360']);
      shapes.length = 0;
      await surveyVideo(file, { kind: 'animal', fps: 5, views: { flip: false, tiles: false } }, { detector });
      expect(shapes).toEqual(Array(pass.frames).fill('640x360'));
      // The operator's SURVEY_DETECT_LOOKS=whole is that one-look pass; `all` the four looks.
      shapes.length = 0;
      await surveyVideo(file, { kind: 'animal', fps: 5, views: looksFor('whole') }, { detector });
      expect(shapes).toEqual(Array(pass.frames).fill('640x360'));
      expect(looksFor('all')).toEqual({ flip: true, tiles: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
