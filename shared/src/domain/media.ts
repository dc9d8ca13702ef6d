/**
 * Media types recognised from their first bytes, never from the client's claimed type:
 * a phone may label a HEIC as image/jpeg, and a wrong type must fail fast with a clear 422.
 */
export type MediaClass = 'image' | 'video';

interface Signature {
  type: string;
  cls: MediaClass;
  test: (b: Buffer) => boolean;
}

const at = (b: Buffer, off: number, ascii: string) => b.subarray(off, off + ascii.length).toString('latin1') === ascii;

const SIGNATURES: Signature[] = [
  { type: 'image/jpeg', cls: 'image', test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/png', cls: 'image', test: (b) => at(b, 0, '\x89PNG\r\n\x1a\n') },
  { type: 'image/webp', cls: 'image', test: (b) => at(b, 0, 'RIFF') && at(b, 8, 'WEBP') },
  { type: 'image/gif', cls: 'image', test: (b) => at(b, 0, 'GIF87a') || at(b, 0, 'GIF89a') },
  { type: 'image/tiff', cls: 'image', test: (b) => at(b, 0, 'II*\x00') || at(b, 0, 'MM\x00*') },
  {
    type: 'image/heic',
    cls: 'image',
    test: (b) => at(b, 4, 'ftyp') && /^(heic|heix|mif1|msf1|avif)$/.test(b.subarray(8, 12).toString('latin1')),
  },
  { type: 'video/x-msvideo', cls: 'video', test: (b) => at(b, 0, 'RIFF') && at(b, 8, 'AVI ') },
  { type: 'video/webm', cls: 'video', test: (b) => b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3 },
  { type: 'video/mp4', cls: 'video', test: (b) => at(b, 4, 'ftyp') },
];

/** The sniffed content type and class, or null when the bytes are none of the types we accept. */
export function sniffMedia(bytes: Buffer): { type: string; cls: MediaClass } | null {
  if (bytes.length < 12) return null;
  const hit = SIGNATURES.find((s) => s.test(bytes));
  return hit ? { type: hit.type, cls: hit.cls } : null;
}
