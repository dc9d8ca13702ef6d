/**
 * Hostile files built in code, byte by byte: zip bombs that lie about their sizes or entry
 * count, a decompression-bomb PNG, a video whose second stream is huge, truncated JPEGs.
 * Nothing is read from disk; sizes are modest but over the caps they test.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { deflateRawSync, deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
export function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * The 98-byte zip64 archive whose end records claim 0xFFFFFFFF entries (and a central directory
 * at 0xFFFFFFFF): zip64 end record (56) + zip64 locator (20) + classic end record (22).
 */
export function zip64EntryCountBomb(): Buffer {
  const rec = Buffer.alloc(56);
  rec.writeUInt32LE(0x06064b50, 0);
  rec.writeBigUInt64LE(44n, 4); // size of the rest of this record
  rec.writeUInt16LE(45, 12);
  rec.writeUInt16LE(45, 14);
  rec.writeBigUInt64LE(0xffffffffn, 24); // entries on this disk
  rec.writeBigUInt64LE(0xffffffffn, 32); // entries in all
  rec.writeBigUInt64LE(0n, 40); // central directory size
  rec.writeBigUInt64LE(0xffffffffn, 48); // central directory offset: past the end, where every read is zero
  const loc = Buffer.alloc(20);
  loc.writeUInt32LE(0x07064b50, 0);
  loc.writeBigUInt64LE(0n, 8); // where the zip64 end record is
  loc.writeUInt32LE(1, 16);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(0xffff, 8);
  end.writeUInt16LE(0xffff, 10);
  end.writeUInt32LE(0xffffffff, 12);
  end.writeUInt32LE(0xffffffff, 16);
  return Buffer.concat([rec, loc, end]);
}

export interface RawEntry {
  name: string;
  /** What the entry really holds, uncompressed. */
  data: Buffer;
  /** The uncompressed size the headers declare; the truth when absent. */
  declaredSize?: number;
  /** Deflate (8, default) or stored (0). */
  method?: 0 | 8;
  /** Central-directory entries pointing at an earlier entry's local data (an overlapping bomb). */
  sameDataAs?: number;
}

/** A classic zip written by hand, so headers can lie where a zip library would not let them. */
export function rawZip(entries: RawEntry[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  const offsets: number[] = [];
  const meta: Array<{ crc: number; csize: number; method: number }> = [];
  let offset = 0;
  entries.forEach((e) => {
    const name = Buffer.from(e.name, 'utf8');
    const declared = e.declaredSize ?? e.data.length;
    let at = offset;
    let m: { crc: number; csize: number; method: number };
    if (e.sameDataAs !== undefined) {
      at = offsets[e.sameDataAs]!;
      m = meta[e.sameDataAs]!;
    } else {
      const method = e.method ?? 8;
      const body = method === 8 ? deflateRawSync(e.data, { level: 9 }) : e.data;
      m = { crc: crc32(e.data), csize: body.length, method };
      const h = Buffer.alloc(30);
      h.writeUInt32LE(0x04034b50, 0);
      h.writeUInt16LE(20, 4);
      h.writeUInt16LE(0x800, 6); // UTF-8 names
      h.writeUInt16LE(method, 8);
      h.writeUInt32LE(m.crc, 14);
      h.writeUInt32LE(m.csize, 18);
      h.writeUInt32LE(declared, 22);
      h.writeUInt16LE(name.length, 26);
      locals.push(h, name, body);
      offset += h.length + name.length + body.length;
    }
    offsets.push(at);
    meta.push(m);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(0x800, 8);
    c.writeUInt16LE(m.method, 10);
    c.writeUInt32LE(m.crc, 16);
    c.writeUInt32LE(m.csize, 20);
    c.writeUInt32LE(declared, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(at, 42);
    central.push(c, name);
  });
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/**
 * A valid greyscale PNG of `side`×`side` black pixels: a few hundred KB that decode to side² bytes
 * (16000 gives the 776 KB-class bomb of the issue; 8000 is 64 Mpx, over the 50 Mpx default).
 */
export function pngBomb(side: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const raw = Buffer.alloc((side + 1) * side); // each row: filter byte 0, then zeros
  const idat = deflateSync(raw, { level: 9 });
  return Buffer.concat([
    Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', idat),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An MP4 with a small first video stream and a `big`×`bigH` second one (one second, one frame a second). */
export async function clipWithHugeSecondStream(big = 7680, bigH = 4320): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-hostile-'));
  try {
    const out = path.join(dir, 'two.mp4');
    execFileSync('ffmpeg', [
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc2=size=320x240:rate=2:duration=1',
      '-f',
      'lavfi',
      '-i',
      `color=c=gray:size=${big}x${bigH}:rate=1:duration=1`,
      '-map',
      '0:v',
      '-map',
      '1:v',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
      '-y',
      out,
    ]);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
