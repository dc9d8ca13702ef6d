import { photoForm, textureImage } from '../support/images.js';
import { individualRowCounts } from '../support/rows.js';

/** What the job stories share (jobs.spec.ts, jobs-killed-process.spec.ts, jobs-killed-worker.spec.ts). */
export const photos = (seed: number, n: number) => Promise.all(Array.from({ length: n }, (_, i) => textureImage(seed * 100 + i, 384)));

export async function enroll(url: string, token: string, files: Buffer[]) {
  const r = await fetch(`${url}/api/enroll`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: photoForm(files, { species: 'durian', farm_id: 'farm-1' }),
  });
  return { status: r.status, json: (await r.json()) as any, location: r.headers.get('location') };
}

export const counts = individualRowCounts;
