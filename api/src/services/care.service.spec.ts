import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { strictMock } from '../../../test/support/strict-mock.js';
import { blankImage } from '../../../test/support/images.js';
import type { UploadedFile } from '../middleware/multipart.js';
import { createCareService, type CareDeps } from './care.service.js';

const DATA = { banned: path.resolve('shared/data/care/banned.json'), products: path.resolve('shared/data/care/products.json') };
const LIMITS = { imageMaxPixels: 40_000_000, ocrMaxConcurrent: 2, ocrMaxPerAccount: 1 };
const photo = (bytes: Buffer, filename = 'label.png'): UploadedFile => ({ field: 'files', filename, mimeType: 'image/png', bytes });

function care(over: Partial<CareDeps> = {}) {
  return createCareService({
    files: DATA,
    ocr: strictMock<CareDeps['ocr']>({}, 'ocr'),
    limits: LIMITS,
    logger: strictMock<CareDeps['logger']>({}, 'logger'),
    ...over,
  });
}

describe('care service: matching a product', () => {
  it('matches typed text without reading the photo sent with it', async () => {
    const result = await care().match('Aldrin 40EC', photo(await blankImage(64)), 'en');
    expect(result.text_read).toBe('Aldrin 40EC');
    expect(result.banned.map((b) => b.id)).toContain('aldrin');
    expect(result.banned_check).not.toBe('not_run');
  });

  it('reads the photo through OCR when no text was typed, and matches what it read', async () => {
    const bytes = await blankImage(64);
    const read = vi.fn(async () => ({ state: 'read' as const, text: 'ALDRIN' }));
    const result = await care({ ocr: strictMock<CareDeps['ocr']>({ read }) }).match('  ', photo(bytes), 'vi', 'owner-1');
    expect(read).toHaveBeenCalledWith(bytes);
    expect(result.banned.map((b) => b.id)).toContain('aldrin');
  });

  it('refuses an empty file or one that is not an image with 422 naming it, before OCR', async () => {
    const s = care();
    await expect(s.match(undefined, photo(Buffer.alloc(0), 'a.png'), 'en')).rejects.toMatchObject({
      status: 422,
      code: 'file_empty',
      params: { field: 'files', filename: 'a.png' },
    });
    await expect(s.match(undefined, photo(Buffer.from('%PDF-1.4 not a photo'), 'b.pdf'), 'en')).rejects.toMatchObject({
      status: 422,
      code: 'file_wrong_type',
    });
  });

  it('refuses a photo over the pixel limit with 413 before OCR decodes it', async () => {
    const s = care({ limits: { ...LIMITS, imageMaxPixels: 1000 } });
    await expect(s.match(undefined, photo(await blankImage(64)), 'en')).rejects.toMatchObject({
      status: 413,
      code: 'image_too_many_pixels',
    });
  });
});

describe('care service: the catalogue', () => {
  it('filters the banned catalogue by scope and severity', async () => {
    const s = care();
    const all = await s.banned({}, 'en');
    const some = await s.banned({ scope: 'aquaculture', severity: 'restricted' }, 'en');
    expect(all).toMatchObject({ available: true, version: expect.any(String) });
    expect(some.count).toBeGreaterThan(0);
    expect(some.count).toBeLessThan(all.count);
    for (const row of some.substances) {
      expect(row.scopes).toContain('aquaculture');
      expect(row.severity).toBe('restricted');
    }
  });

  it('answers a catalogue it cannot read as unavailable (never an error), warns, and tries it again next time', async () => {
    const warn = vi.fn();
    const s = care({
      files: { ...DATA, banned: '/nonexistent/banned.json' },
      logger: strictMock<CareDeps['logger']>({ warn: warn as never }),
    });
    expect(await s.banned({}, 'en')).toEqual({ available: false, version: null, count: 0, substances: [] });
    expect(await s.bannedIn('aldrin')).toBeNull();
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn).toHaveBeenCalledWith({ path: '/nonexistent/banned.json' }, 'banned catalogue unavailable');
  });

  it('lists products by scope and by category, the category in any case', async () => {
    const s = care();
    const vet = await s.products(undefined, ' Veterinary ');
    expect(vet.count).toBeGreaterThan(0);
    expect(vet.products.every((p) => p.category === 'veterinary' && p.scope === 'livestock')).toBe(true);
    expect((await s.products('crop', 'veterinary')).count).toBe(0);
  });
});
