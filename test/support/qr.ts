import jsQRModule from 'jsqr';
import sharp from 'sharp';

type JsQR = typeof jsQRModule.default;
// jsqr is CommonJS whose types declare an ES default export: Node hands over module.exports itself.
const jsQR: JsQR = (jsQRModule as unknown as { default?: JsQR }).default ?? (jsQRModule as unknown as JsQR);

/** An SVG (a served label) drawn to a PNG `width` pixels wide, as a phone photo of it would be read. */
export function svgToPng(svg: string | Buffer, width = 600): Promise<Buffer> {
  return sharp(Buffer.from(svg)).resize({ width }).flatten({ background: '#fff' }).png().toBuffer();
}

/** The text of the QR code in a picture (any format sharp reads), or null when it holds none. */
export async function readQr(picture: Buffer): Promise<string | null> {
  const { data, info } = await sharp(picture).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height)?.data ?? null;
}
