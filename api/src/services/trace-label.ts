import QRCode from 'qrcode';

/**
 * The printable label of a traceability code: a QR code of the code's public page and the code
 * printed under it, so a label whose QR is scratched can still be typed in.
 *
 * ```ts
 * const svg = await traceLabelSvg('MKL-w3g1p1f-7QH4ZK2M', 'https://example.org/t/MKL-w3g1p1f-7QH4ZK2M');
 * ```
 *
 * Sized in millimetres (50 × 60) so it prints at a known size. The QR uses error correction
 * level M (15 % of it may be lost) and keeps the standard 4-module quiet zone; the code's text
 * shrinks to fit the widest prefix (6 letters). Pure: no I/O.
 */
export async function traceLabelSvg(code: string, url: string): Promise<string> {
  const { modules } = QRCode.create(url, { errorCorrectionLevel: 'M' });
  const QUIET = 4;
  const side = modules.size + 2 * QUIET;
  // One run per row of dark modules, as one path: the file stays small and prints without seams.
  let d = '';
  for (let y = 0; y < modules.size; y++) {
    for (let x = 0; x < modules.size;) {
      if (!modules.get(y, x)) {
        x++;
        continue;
      }
      let run = 1;
      while (x + run < modules.size && modules.get(y, x + run)) run++;
      d += `M${x + QUIET} ${y + QUIET}h${run}v1h-${run}z`;
      x += run;
    }
  }
  // Monospace glyphs are about 0.6 em wide; 460 of the 500 units are free for the code.
  const codeSize = Math.min(36, Math.floor(460 / (0.6 * code.length)));
  const text = escapeXml(code);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<svg xmlns="http://www.w3.org/2000/svg" width="50mm" height="60mm" viewBox="0 0 500 600" role="img">',
    `<title>${text}</title>`,
    '<rect width="500" height="600" fill="#fff"/>',
    `<svg x="20" y="10" width="460" height="460" viewBox="0 0 ${side} ${side}" shape-rendering="crispEdges">`,
    `<path fill="#000" d="${d}"/>`,
    '</svg>',
    `<text x="250" y="520" text-anchor="middle" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="${codeSize}" font-weight="bold" fill="#000">${text}</text>`,
    '<text x="250" y="570" text-anchor="middle" font-family="DejaVu Sans, Arial, sans-serif" font-size="17" fill="#000">Quét để xem nguồn gốc · Scan to see its origin</text>',
    '</svg>',
    '',
  ].join('\n');
}

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
