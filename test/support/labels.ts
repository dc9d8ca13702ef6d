import sharp from 'sharp';
import { rng } from './images.js';

/** One generated packaging label and what is printed on it. */
export interface LabelSpec {
  seed: number;
  lang: 'vi' | 'en';
  /** The active ingredient printed on the label (a catalogue spelling). */
  ingredient: string;
  brand: string;
  /** Degrees the photo is turned (a hand-held phone). */
  angle: number;
  noise: number;
  blur: number;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The lines of a label in Vietnamese or English, like a real pesticide or veterinary pack. */
export function labelLines(spec: Pick<LabelSpec, 'lang' | 'ingredient' | 'brand'>, dose: string): string[] {
  return spec.lang === 'vi'
    ? [
        spec.brand.toUpperCase(),
        `Hoạt chất: ${spec.ingredient} ${dose}`,
        'Thuốc trừ sâu dạng hạt',
        'Đọc kỹ hướng dẫn trước khi dùng',
        'Thời gian cách ly: 14 ngày',
      ]
    : [
        spec.brand.toUpperCase(),
        `Active ingredient: ${spec.ingredient} ${dose}`,
        'Insecticide granules',
        'Read the label before use',
        'Pre-harvest interval: 14 days',
      ];
}

/**
 * Renders a label with DejaVu Sans (fonts-dejavu-core) through SVG, then degrades it like a
 * phone photo: turned by `angle`, Gaussian blur `blur`, and per-pixel noise of amplitude `noise`.
 */
export async function labelImage(spec: LabelSpec): Promise<Buffer> {
  const r = rng(spec.seed * 104729 + 7);
  const dose = `${Math.round(1 + r() * 40)}%`;
  const lines = labelLines(spec, dose);
  const W = 1000;
  const H = 120 + lines.length * 78;
  const text = lines
    .map(
      (l, i) =>
        `<text x="50" y="${110 + i * 78}" font-family="DejaVu Sans" font-size="${i === 0 ? 54 : 40}" font-weight="${i === 0 ? 'bold' : 'normal'}" fill="#111">${esc(l)}</text>`,
    )
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect width="100%" height="100%" fill="#f4f1e6"/><rect x="15" y="15" width="${W - 30}" height="${H - 30}" fill="none" stroke="#2a6" stroke-width="6"/>${text}</svg>`;
  const turned = await sharp(Buffer.from(svg))
    .rotate(spec.angle, { background: '#d8d2c0' })
    .blur(spec.blur > 0.3 ? spec.blur : undefined)
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { data, info } = turned;
  for (let i = 0; i < data.length; i++) data[i] = Math.max(0, Math.min(255, data[i]! + (r() - 0.5) * 2 * spec.noise));
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** Banned ingredients printed on generated labels, in the spellings a pack really uses. */
export const LABEL_INGREDIENTS: Record<'vi' | 'en', string[]> = {
  vi: [
    'Cacbofuran',
    'Endosulfan',
    'Paraquat',
    'Methamidophos',
    'Triclorfon',
    'Fipronil',
    'Carbendazim',
    'Glyphosat',
    'Cloramphenicol',
    'Xanh malachite',
    'Furazolidon',
    'Lindan',
    'Ractopamin',
    'Salbutamol',
    'Monocrotophos',
  ],
  en: [
    'Carbofuran',
    'Endosulfan',
    'Paraquat dichloride',
    'Methamidophos',
    'Trichlorfon',
    'Fipronil',
    'Carbendazim',
    'Glyphosate',
    'Chloramphenicol',
    'Malachite green',
    'Furazolidone',
    'Lindane',
    'Ractopamine',
    'Clenbuterol',
    'Chlorpyrifos',
  ],
};

const BRANDS = ['Agro Star', 'Nong Phat', 'Green Field', 'Mekong Care', 'Sao Vang', 'Delta Farm'];

/** The `i`-th label of a reproducible series: alternating languages, angles up to ±12°, noise and blur. */
export function labelSpec(i: number): LabelSpec {
  const r = rng(i * 7919 + 3);
  const lang = i % 2 === 0 ? 'vi' : 'en';
  const pool = LABEL_INGREDIENTS[lang];
  return {
    seed: i,
    lang,
    ingredient: pool[i % pool.length]!,
    brand: BRANDS[Math.floor(r() * BRANDS.length)]!,
    angle: Math.round((r() - 0.5) * 24 * 10) / 10,
    noise: Math.round(10 + r() * 30),
    blur: Math.round((0.3 + r() * 1.4) * 10) / 10,
  };
}
