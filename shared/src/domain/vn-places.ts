/**
 * The place a shopper reads on a public page (issue 39 item 8): a Vietnamese province and its
 * region, worked out offline from the coarse geohash a traceability code already prints.
 *
 * How: each of the 63 provinces as they were until mid-2025 is one point near its middle; the
 * nearest point names the province it now belongs to (the 34 provinces and cities of the 2025
 * merger) and the region it lies in. Using the old, smaller provinces as points keeps the guess
 * close to the real borders without shipping border polygons; near a border it can still name the
 * neighbour, which is why the page words it as an area ("khu vực"), never as an address. A point
 * farther than {@link MAX_KM} from every centre (outside Vietnam) names nothing.
 *
 * A province is far coarser than the code's own 150 m cell, so this reveals nothing the code does
 * not.
 */
import ngeohash from 'ngeohash';
import { isNoLocation } from './trace-code.js';

/** A name in both languages of the app. */
export interface Words {
  vi: string;
  en: string;
}

/** What `/api/resolve/{code}` says about where a published tree grows. */
export interface Place {
  province: Words;
  region: Words;
}

const REGIONS = {
  north: { vi: 'Trung du và miền núi phía Bắc', en: 'Northern midlands and mountains' },
  delta: { vi: 'Đồng bằng sông Hồng', en: 'Red River Delta' },
  ncc: { vi: 'Bắc Trung Bộ', en: 'North Central Coast' },
  scc: { vi: 'Duyên hải Nam Trung Bộ', en: 'South Central Coast' },
  highlands: { vi: 'Tây Nguyên', en: 'Central Highlands' },
  southeast: { vi: 'Đông Nam Bộ', en: 'Southeast' },
  mekong: { vi: 'Đồng bằng sông Cửu Long', en: 'Mekong Delta' },
} as const satisfies Record<string, Words>;
type Region = keyof typeof REGIONS;

/** [former province's middle: lat, lon, province it belongs to since 2025, region]. */
const CENTRES: ReadonlyArray<readonly [number, number, string, Region]> = [
  [22.8, 104.98, 'Tuyên Quang', 'north'], // Hà Giang
  [22.1, 105.2, 'Tuyên Quang', 'north'],
  [22.67, 106.26, 'Cao Bằng', 'north'],
  [22.15, 105.83, 'Thái Nguyên', 'north'], // Bắc Kạn
  [21.85, 106.76, 'Lạng Sơn', 'north'],
  [21.59, 105.85, 'Thái Nguyên', 'north'],
  [22.35, 104.0, 'Lào Cai', 'north'],
  [21.75, 104.6, 'Lào Cai', 'north'], // Yên Bái
  [22.3, 103.2, 'Lai Châu', 'north'],
  [21.6, 103.0, 'Điện Biên', 'north'],
  [21.2, 104.0, 'Sơn La', 'north'],
  [20.7, 105.35, 'Phú Thọ', 'north'], // Hoà Bình
  [21.3, 105.15, 'Phú Thọ', 'north'],
  [21.35, 106.4, 'Bắc Ninh', 'north'], // Bắc Giang
  [21.1, 107.3, 'Quảng Ninh', 'north'],
  [21.0, 105.75, 'Hà Nội', 'delta'],
  [21.35, 105.55, 'Phú Thọ', 'delta'], // Vĩnh Phúc
  [21.12, 106.08, 'Bắc Ninh', 'delta'],
  [20.94, 106.33, 'Hải Phòng', 'delta'], // Hải Dương
  [20.85, 106.68, 'Hải Phòng', 'delta'],
  [20.8, 106.05, 'Hưng Yên', 'delta'],
  [20.45, 106.35, 'Hưng Yên', 'delta'], // Thái Bình
  [20.55, 105.92, 'Ninh Bình', 'delta'], // Hà Nam
  [20.3, 106.2, 'Ninh Bình', 'delta'], // Nam Định
  [20.2, 105.9, 'Ninh Bình', 'delta'],
  [20.0, 105.5, 'Thanh Hoá', 'ncc'],
  [19.2, 104.9, 'Nghệ An', 'ncc'],
  [18.3, 105.9, 'Hà Tĩnh', 'ncc'],
  [17.5, 106.3, 'Quảng Trị', 'ncc'], // Quảng Bình
  [16.75, 107.0, 'Quảng Trị', 'ncc'],
  [16.35, 107.6, 'Huế', 'ncc'],
  [16.05, 108.15, 'Đà Nẵng', 'scc'],
  [15.55, 108.0, 'Đà Nẵng', 'scc'], // Quảng Nam
  [15.0, 108.7, 'Quảng Ngãi', 'scc'],
  [14.1, 108.9, 'Gia Lai', 'scc'], // Bình Định
  [13.15, 109.05, 'Đắk Lắk', 'scc'], // Phú Yên
  [12.3, 109.0, 'Khánh Hoà', 'scc'],
  [11.7, 108.85, 'Khánh Hoà', 'scc'], // Ninh Thuận
  [11.1, 108.1, 'Lâm Đồng', 'scc'], // Bình Thuận
  [14.6, 107.9, 'Quảng Ngãi', 'highlands'], // Kon Tum
  [13.8, 108.1, 'Gia Lai', 'highlands'],
  [12.8, 108.2, 'Đắk Lắk', 'highlands'],
  [12.2, 107.7, 'Lâm Đồng', 'highlands'], // Đắk Nông
  [11.8, 108.2, 'Lâm Đồng', 'highlands'],
  [11.75, 106.8, 'Đồng Nai', 'southeast'], // Bình Phước
  [11.35, 106.1, 'Tây Ninh', 'southeast'],
  [11.2, 106.65, 'Thành phố Hồ Chí Minh', 'southeast'], // Bình Dương
  [11.05, 107.15, 'Đồng Nai', 'southeast'],
  [10.55, 107.25, 'Thành phố Hồ Chí Minh', 'southeast'], // Bà Rịa – Vũng Tàu
  [10.8, 106.65, 'Thành phố Hồ Chí Minh', 'southeast'],
  [10.65, 106.2, 'Tây Ninh', 'mekong'], // Long An
  [10.4, 106.3, 'Đồng Tháp', 'mekong'], // Tiền Giang
  [10.15, 106.5, 'Vĩnh Long', 'mekong'], // Bến Tre
  [9.8, 106.3, 'Vĩnh Long', 'mekong'], // Trà Vinh
  [10.15, 106.0, 'Vĩnh Long', 'mekong'],
  [10.55, 105.65, 'Đồng Tháp', 'mekong'],
  [10.5, 105.15, 'An Giang', 'mekong'],
  [10.0, 105.1, 'An Giang', 'mekong'], // Kiên Giang
  [10.1, 105.65, 'Cần Thơ', 'mekong'],
  [9.8, 105.6, 'Cần Thơ', 'mekong'], // Hậu Giang
  [9.55, 105.95, 'Cần Thơ', 'mekong'], // Sóc Trăng
  [9.3, 105.55, 'Cà Mau', 'mekong'], // Bạc Liêu
  [9.05, 105.05, 'Cà Mau', 'mekong'],
];

/** Farther than this from every centre is outside the table (another country, the open sea). */
const MAX_KM = 90;

const ENGLISH: Record<string, string> = { 'Thành phố Hồ Chí Minh': 'Ho Chi Minh City' };
/** The English spelling: Vietnamese without its marks, as maps in English write provinces. */
const english = (vi: string) => ENGLISH[vi] ?? vi.normalize('NFD').replace(/\p{M}/gu, '').replace(/đ/g, 'd').replace(/Đ/g, 'D');

function km(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const x = (lon2 - lon1) * rad * Math.cos(((lat1 + lat2) / 2) * rad);
  const y = (lat2 - lat1) * rad;
  return Math.hypot(x, y) * 6371;
}

/** The province and region of a coarse geohash, or null with no location or outside Vietnam. */
export function placeOfGeohash(geohash: string): Place | null {
  if (isNoLocation(geohash)) return null;
  let lat: number;
  let lon: number;
  try {
    ({ latitude: lat, longitude: lon } = ngeohash.decode(geohash));
  } catch {
    return null;
  }
  let best: (typeof CENTRES)[number] | null = null;
  let bestKm = MAX_KM;
  for (const c of CENTRES) {
    const d = km(lat, lon, c[0], c[1]);
    if (d <= bestKm) [best, bestKm] = [c, d];
  }
  if (!best) return null;
  return { province: { vi: best[2], en: english(best[2]) }, region: REGIONS[best[3]] };
}
