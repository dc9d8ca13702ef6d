import { ANIMAL_CLASS_IDS, loadDetector } from '../../workers/src/vision/detector.js';
import { animalScene } from '../../workers/src/vision/testing/animal-scene.js';

/** One generated photo and what the service's own detector makes of it. */
export interface Shot {
  photo: Buffer;
  label: string;
  score: number;
}

/**
 * Generated field photos of the animal `coat` that the service's detector finds an animal in
 * (animal enrolment refuses photos without one), tried shot by shot in a fixed order, so the
 * same photos come back on every run. Throws when too few of the first `tries` shots qualify.
 */
export async function detectableShots(
  coat: number,
  n: number,
  opts: { minScore?: number; label?: string; tries?: number } = {},
): Promise<Shot[]> {
  const det = await loadDetector();
  const out: Shot[] = [];
  for (let shot = 0; shot < (opts.tries ?? 40) && out.length < n; shot++) {
    const photo = await animalScene({ coat, shot, dx: ((shot * 37) % 81) - 40 });
    const [best] = await det.detect(new Uint8Array(photo), { classes: ANIMAL_CLASS_IDS, minScore: 0.05 });
    if (best && best.score >= (opts.minScore ?? 0.35) && (!opts.label || best.label === opts.label))
      out.push({ photo, label: best.label, score: best.score });
  }
  if (out.length < n) throw new Error(`coat ${coat}: only ${out.length} of ${n} detectable shots`);
  return out;
}
