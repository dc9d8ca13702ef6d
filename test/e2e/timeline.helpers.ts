/** Helpers shared by the evidence e2e suites (timeline, anchor, provenance). */
import { photoForm, textureImage } from '../support/images.js';

/** `size`-pixel textured photos, different per seed. */
export const photos = (seed: number, n: number, size = 256) =>
  Promise.all(Array.from({ length: n }, (_, i) => textureImage(seed * 100 + i, size)));

/** Enrols one tree through the real route and returns the enrolment answer. */
export async function enrollTree(url: string, token: string, seed: number, fields: Record<string, string> = {}): Promise<any> {
  const files = await photos(seed, 2);
  const r = await fetch(`${url}/api/enroll`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: photoForm(files, { species: 'durian', farm_id: 'farm-1', lat: '10.7626', lon: '106.6601', ...fields }),
  });
  const json = (await r.json()) as any;
  if (r.status !== 200) throw new Error(`enrol failed: ${r.status} ${JSON.stringify(json)}`);
  return { ...json, files };
}
