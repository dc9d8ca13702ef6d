import sharp from 'sharp';
import { api, type TestApp } from './app.js';
import { otherView, textureImage } from './images.js';

export interface SseEvent {
  event: string;
  data: any;
}

/** Parse a whole `text/event-stream` body into its events. */
export function parseSse(text: string): SseEvent[] {
  return text
    .split(/\n\n+/)
    .filter((b) => b.trim() && !b.startsWith(':'))
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { event, data: data ? JSON.parse(data) : null };
    });
}

/** Follow a batch's event stream to its end; resolves with the events and the response headers. */
export async function followEvents(app: TestApp, batchId: string, headers: Record<string, string>) {
  const res = await fetch(`${app.url}/api/fruit/batch/${batchId}/events`, { headers });
  return { status: res.status, type: res.headers.get('content-type'), events: parseSse(await res.text()) };
}

/** Wait until a batch is done, by polling GET (readiness, not a fixed sleep). No vitest import: benchmarks use this file too. */
export async function untilDone(app: Pick<TestApp, 'url'>, token: string, batchId: string, ms = 240_000): Promise<any> {
  const end = Date.now() + ms;
  for (;;) {
    // In embedded mode the photos are described in the API's own process; a keep-alive socket the
    // server closes just as a poll reuses it is reset. A poll is idempotent, so a reset one is asked again.
    const r = await api(app.url, 'GET', `/api/fruit/batch/${batchId}`, { token }).catch((err: { cause?: { code?: string } }) => {
      if (err?.cause?.code === 'ECONNRESET' && Date.now() < end) return null;
      throw err;
    });
    if (!r) continue;
    if (r.status !== 200) throw new Error(`GET batch ${batchId}: ${r.status} ${r.text}`);
    if (r.json.status === 'done') return r.json;
    if (Date.now() > end) throw new Error(`batch ${batchId} not done within ${ms} ms: ${r.json.done}/${r.json.total}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

/** A multipart batch body: photos under `files`, an optional archive, plain fields. */
export function batchForm(photos: { name: string; bytes: Buffer }[], fields: Record<string, string> = {}, archive?: Uint8Array): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const p of photos) form.append('files', new Blob([p.bytes]), p.name);
  if (archive) form.append('archive', new Blob([archive], { type: 'application/zip' }), 'photos.zip');
  return form;
}

/** `n` small generated fruit photos: views of `surfaces` different peels, round robin. */
export async function smallFruitPhotos(n: number, surfaces: Buffer[]): Promise<{ name: string; bytes: Buffer }[]> {
  const out: { name: string; bytes: Buffer }[] = [];
  for (let i = 0; i < n; i++) {
    const v = await otherView(surfaces[i % surfaces.length]!, 50_000 + i);
    out.push({ name: `fruit-${String(i).padStart(3, '0')}.jpg`, bytes: await sharp(v).resize(160, 160).jpeg({ quality: 80 }).toBuffer() });
  }
  return out;
}

/** Small peel surfaces (seeded), for enrolment and batch queries. */
export const surface = (seed: number) => textureImage(seed, 192);

/** The peels a 200-photo batch is drawn from (enrolled first, one fruit each). */
export const BULK_SURFACES = [821, 822, 823, 824];
