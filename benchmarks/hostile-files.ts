/**
 * Issue 21's hostile files against a real API child process at default limits: how long each takes
 * to be refused, and how fast `/api/health` answers meanwhile (probed back to back).
 *
 *   npx tsx benchmarks/hostile-files.ts [embedded|distributed] [runs=3]
 *
 * Files: the 98-byte zip64 archive claiming 0xFFFFFFFF entries; an entry declaring 1,000 bytes that
 * inflates to 2 GB (about 2 MB compressed, built by streaming so the script stays small in memory);
 * a 16000×16000 PNG (about 250 KB) sent to OCR (`POST /api/care/match`).
 */
import { once } from 'node:events';
import { createDeflateRaw } from 'node:zlib';
import { signup, type Mode } from '../test/support/app.js';
import { startChildApp } from '../test/support/child-app.js';
import { batchForm } from '../test/support/fruit-batch.js';
import { crc32, pngBomb, rawZip, zip64EntryCountBomb } from '../test/support/hostile.js';
import { photoForm } from '../test/support/images.js';

/** Deflate `bytes` zeros in 1 MB pieces, so a 2 GB entry never sits in memory. */
async function deflatedZeros(bytes: number): Promise<Buffer> {
  const d = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  d.on('data', (c: Buffer) => out.push(c));
  const chunk = Buffer.alloc(1 << 20);
  for (let left = bytes; left > 0; left -= chunk.length) {
    if (!d.write(left >= chunk.length ? chunk : chunk.subarray(0, left))) await once(d, 'drain');
  }
  d.end();
  await once(d, 'end');
  return Buffer.concat(out);
}

/** A one-entry zip whose headers declare `declared` bytes for a body that really inflates to far more. */
function lyingZip(deflated: Buffer, declared: number): Buffer {
  // rawZip deflates its data itself; give it one byte, then splice the real body in place of it.
  const small = rawZip([{ name: 'peel.jpg', data: Buffer.from([0]), declaredSize: declared }]);
  const bodyAt = 30 + 'peel.jpg'.length;
  const oneByte = small.readUInt32LE(18);
  const head = Buffer.from(small.subarray(0, bodyAt));
  const tail = Buffer.from(small.subarray(bodyAt + oneByte));
  head.writeUInt32LE(deflated.length, 18);
  tail.writeUInt32LE(deflated.length, 20); // central directory: compressed size
  tail.writeUInt32LE(crc32(Buffer.alloc(0)), 16);
  const cdOffset = bodyAt + deflated.length;
  tail.writeUInt32LE(cdOffset, tail.length - 6); // end record: central directory offset
  return Buffer.concat([head, deflated, tail]);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const mode = (process.argv[2] ?? 'embedded') as Mode;
  const runs = Number(process.argv[3] ?? 3);
  const app = await startChildApp(mode);
  try {
    const { token } = await signup(app.url, 'bench');
    const bombBody = await deflatedZeros(2_000_000_000);
    const cases: Array<[string, string, () => FormData]> = [
      ['98-byte zip64 (0xFFFFFFFF entries)', '/api/fruit/batch', () => batchForm([], {}, zip64EntryCountBomb())],
      [
        `ratio bomb (declares 1,000 B, inflates to 2 GB; ${(bombBody.length / 1e6).toFixed(1)} MB)`,
        '/api/fruit/batch',
        () => batchForm([], {}, lyingZip(bombBody, 1_000)),
      ],
      ['16000×16000 PNG to OCR', '/api/care/match', () => photoForm([pngBomb(16_000)])],
    ];
    for (const [name, route, form] of cases) {
      const took: number[] = [];
      const worst: number[] = [];
      const probes: number[] = [];
      let status = 0;
      let code = '';
      for (let i = 0; i < runs; i++) {
        const body = form();
        let done = false;
        const health: number[] = [];
        const probe = (async () => {
          while (!done) {
            const t = performance.now();
            const r = await fetch(`${app.url}/api/health`).catch(() => null);
            await r?.arrayBuffer();
            health.push(r?.ok ? performance.now() - t : Infinity);
            await new Promise((res) => setTimeout(res, 10));
          }
        })();
        const t0 = performance.now();
        const r = await fetch(app.url + route, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body });
        const json = (await r.json()) as { code?: string };
        took.push(performance.now() - t0);
        done = true;
        await probe;
        status = r.status;
        code = json.code ?? '';
        worst.push(Math.max(...health));
        probes.push(health.length);
      }
      console.log(
        `${mode} | ${name} | ${status} ${code} | refused in ${median(took).toFixed(0)} ms (median of ${runs}) | /api/health worst ${median(worst).toFixed(0)} ms over ${median(probes)} probes`,
      );
    }
  } finally {
    await app.stop();
  }
}

await main();
