import ngeohash from 'ngeohash';
import { describe, expect, it } from 'vitest';
import { NO_LOCATION_GEOHASH } from './trace-code.js';
import { placeOfGeohash } from './vn-places.js';

const at = (lat: number, lon: number) => placeOfGeohash(ngeohash.encode(lat, lon, 7));

describe('placeOfGeohash', () => {
  it('names the province (2025 boundaries) and region of well-known places', () => {
    expect(at(10.7769, 106.7009)).toEqual({
      province: { vi: 'Thành phố Hồ Chí Minh', en: 'Ho Chi Minh City' },
      region: { vi: 'Đông Nam Bộ', en: 'Southeast' },
    });
    expect(at(21.0285, 105.8542)?.province.vi).toBe('Hà Nội');
    expect(at(11.9404, 108.4583)).toMatchObject({ province: { vi: 'Lâm Đồng', en: 'Lam Dong' }, region: { vi: 'Tây Nguyên' } });
    expect(at(10.0452, 105.7469)?.province.vi).toBe('Cần Thơ');
    expect(at(16.4637, 107.5909)?.province).toEqual({ vi: 'Huế', en: 'Hue' });
    // A former province is named by the province it joined: Nam Định is Ninh Bình now.
    expect(at(20.42, 106.17)?.province.vi).toBe('Ninh Bình');
  });

  it('names nothing without a location or outside Vietnam', () => {
    expect(placeOfGeohash(NO_LOCATION_GEOHASH)).toBeNull();
    expect(placeOfGeohash('s000000')).toBeNull();
    expect(at(13.7563, 100.5018)).toBeNull(); // Bangkok
    expect(at(48.8566, 2.3522)).toBeNull();
  });
});
