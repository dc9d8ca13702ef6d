/**
 * The track overlay of docs/surveys.md: a generated herd clip (no dataset photo: generated animals only)
 * through the survey pass, one frame with every track's box, id and trail drawn on it.
 *
 *   npx tsx benchmarks/survey/overlay.ts [--out benchmarks/results/plots/survey-overlay.jpg]
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import sharp from 'sharp';
import { surveyVideo } from '../../workers/src/survey/pipeline.js';
import { ANIMAL_BOUNDS, animalScene } from '../../workers/src/vision/testing/animal-scene.js';
import { renderClip } from './render.js';
import { droneScene } from './scenes.js';
import { loadDetector } from '../../workers/src/vision/detector.js';
import { parseArgs } from '../machine.js';

const args = parseArgs(process.argv.slice(2));
const out = args.get('out') ?? 'benchmarks/results/plots/survey-overlay.jpg';
const at = 30;
// The drone scene of the benchmark, cast with generated animals instead of dataset crops.
const sprites = [];
for (const coat of [831, 832, 833, 834, 839]) {
  const png = await sharp(await animalScene({ coat, format: 'png' }))
    .extract({ left: ANIMAL_BOUNDS.x, top: ANIMAL_BOUNDS.y, width: ANIMAL_BOUNDS.w, height: ANIMAL_BOUNDS.h })
    .png()
    .toBuffer();
  sprites.push({ id: `coat-${coat}`, png, aspect: ANIMAL_BOUNDS.w / ANIMAL_BOUNDS.h });
}
const { video: clip } = await renderClip(await droneScene(sprites, 40));
const dir = await mkdtemp(path.join(os.tmpdir(), 'overlay-'));
try {
  const file = path.join(dir, 'clip.mp4');
  await writeFile(file, clip);
  const pass = await surveyVideo(file, { kind: 'animal', fps: 10 }, { detector: await loadDetector(), keepFrames: true });
  const png = path.join(dir, 'frame.png');
  spawnSync('ffmpeg', ['-v', 'error', '-i', file, '-vf', `select=eq(n\\,${at})`, '-frames:v', '1', png]);
  const colours = ['#ffdd00', '#00e5ff', '#ff4fd8', '#7dff4f', '#ff8a00'];
  const shapes: string[] = [];
  for (const t of pass.tracks) {
    const c = colours[(t.id - 1) % colours.length];
    const pts = t.boxes
      .filter((b) => b.at * 10 <= at)
      .map((b) => `${(b.box.x + b.box.w / 2).toFixed(0)},${(b.box.y + b.box.h).toFixed(0)}`);
    if (pts.length > 1)
      shapes.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="${c}" stroke-width="3" stroke-dasharray="6 4"/>`);
    const now = pass.perFrame![at]!.tracks.find((x) => x.id === t.id);
    if (!now) continue;
    const b = now.box;
    shapes.push(`<rect x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}" fill="none" stroke="${c}" stroke-width="3"/>`);
    shapes.push(
      `<rect x="${b.x}" y="${b.y - 22}" width="92" height="22" fill="${c}"/><text x="${b.x + 5}" y="${b.y - 5}" font-family="sans-serif" font-size="16" font-weight="bold" fill="#000">track ${t.id}</text>`,
    );
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${pass.width}" height="${pass.height}">${shapes.join('')}</svg>`;
  await sharp(png)
    .composite([{ input: Buffer.from(svg) }])
    .jpeg({ quality: 82 })
    .toFile(out);
  console.log(
    `${out}: frame ${at}, ${pass.tracks.length} tracks (${pass.tracks.map((t) => `${t.id}: ${t.boxes.length} boxes, ${t.relinks} re-link(s)`).join('; ')})`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
