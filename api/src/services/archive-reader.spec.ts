import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/src/domain/errors.js';
import { rawZip, zip64EntryCountBomb } from '../../../test/support/hostile.js';
import { readArchive, unsafeEntryName } from './archive-reader.js';

/** The defaults of ARCHIVE_MAX_ENTRIES, ARCHIVE_MAX_INFLATED_BYTES and ARCHIVE_MAX_RATIO, and the 20 MB photo limit. */
const DEFAULTS = { maxEntries: 1_000, maxEntryBytes: 20_000_000, maxTotalBytes: 128_000_000, maxRatio: 100 };

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('archive reader', () => {
  it('refuses the 98-byte zip64 archive by its claimed entry count under the default cap, and as a lie above it', async () => {
    const e = await refusal(readArchive(zip64EntryCountBomb(), 'a.zip', DEFAULTS));
    expect([e.status, e.code, e.params.got]).toEqual([413, 'archive_too_many_entries', 0xffffffff]);
    const lie = await refusal(readArchive(zip64EntryCountBomb(), 'a.zip', { ...DEFAULTS, maxEntries: 1e12 }));
    expect([lie.status, lie.code]).toEqual([422, 'batch_archive_invalid']);
  });

  it('stops inflating an entry at the size it declares', async () => {
    const e = await refusal(
      readArchive(rawZip([{ name: 'a.jpg', data: Buffer.alloc(5_000_000), declaredSize: 1_000 }]), 'b.zip', DEFAULTS),
    );
    expect([e.status, e.code, e.params.entry]).toEqual([422, 'archive_entry_size_mismatch', 'a.jpg']);
  });

  it('refuses a ratio over the cap only above 1 MB: a small, very compressible entry passes', async () => {
    const e = await refusal(readArchive(rawZip([{ name: 'z.jpg', data: Buffer.alloc(2_000_000) }]), 'c.zip', DEFAULTS));
    expect([e.status, e.code]).toEqual([413, 'archive_ratio_too_high']);
    const small = await readArchive(rawZip([{ name: 'blank.jpg', data: Buffer.alloc(500_000) }]), 'c.zip', DEFAULTS);
    expect(small.map((x) => [x.name, x.bytes?.length])).toEqual([['blank.jpg', 500_000]]);
  });

  it('counts real bytes across entries that share one body', async () => {
    const body = randomBytes(400_000);
    const zip = rawZip([{ name: 'a.jpg', data: body }, ...[1, 2, 3].map((i) => ({ name: `b${i}.jpg`, data: body, sameDataAs: 0 }))]);
    const e = await refusal(readArchive(zip, 'd.zip', { ...DEFAULTS, maxTotalBytes: 1_000_000 }));
    expect([e.status, e.code]).toEqual([413, 'archive_inflated_too_large']);
  });

  it('keeps every entry but clutter, in order; unsafe names and over-limit entries get a refused row without being inflated', async () => {
    const out = await readArchive(
      rawZip([
        { name: '../x.jpg', data: Buffer.from('a') },
        { name: '__proto__', data: Buffer.from('b') },
        { name: 'C:/win.jpg', data: Buffer.from('c') },
        { name: 'dir/', data: Buffer.alloc(0), method: 0 },
        { name: '__MACOSX/._a.jpg', data: Buffer.from('d') },
        { name: 'sub/.hidden', data: Buffer.from('e') },
        { name: 'big.jpg', data: Buffer.from('f'), declaredSize: 25_000_000 },
        { name: 'ok.jpg', data: Buffer.from('g'), method: 0 },
      ]),
      'e.zip',
      DEFAULTS,
    );
    expect(out.map((x) => [x.name, x.refused?.reason_code ?? x.bytes?.toString()])).toEqual([
      ['../x.jpg', 'archive_entry_unsafe_name'],
      ['__proto__', 'b'],
      ['C:/win.jpg', 'archive_entry_unsafe_name'],
      ['big.jpg', 'batch_file_too_large'],
      ['ok.jpg', 'g'],
    ]);
  });

  it('names unsafe entry names', () => {
    expect(['../a', 'a/../b', '/etc/x', 'D:x', 'a\u0000b', 'a\nb', 'x'.repeat(1025)].map(unsafeEntryName)).toEqual([
      'parent_directory',
      'parent_directory',
      'absolute_path',
      'absolute_path',
      'control_character',
      'control_character',
      'too_long',
    ]);
    expect(['a.jpg', 'dir/a.jpg', '..a.jpg', '__proto__', 'ảnh cây.jpg'].map(unsafeEntryName)).toEqual([null, null, null, null, null]);
  });

  it('refuses what is not a zip with 422', async () => {
    for (const junk of [Buffer.alloc(0), Buffer.from('PK\u0003\u0004 definitely not a zip')]) {
      const e = await refusal(readArchive(junk, 'f.zip', DEFAULTS));
      expect([e.status, e.code]).toEqual([422, 'batch_archive_invalid']);
    }
  });
});
