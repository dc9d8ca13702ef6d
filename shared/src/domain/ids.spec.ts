import { describe, expect, it } from 'vitest';
import { isUuid } from './ids.js';

describe('isUuid', () => {
  it('accepts the canonical form of any version, in either case', () => {
    expect(isUuid('0b5c6a0e-3f1d-4c2a-9e8b-7d6f5a4b3c2d')).toBe(true);
    expect(isUuid('0B5C6A0E-3F1D-4C2A-9E8B-7D6F5A4B3C2D')).toBe(true);
    expect(isUuid('00000000-0000-0000-0000-000000000000')).toBe(true);
    expect(isUuid('01890a5d-ac96-774b-bcce-b302099a8057')).toBe(true);
  });

  it('refuses anything else: other lengths, missing dashes, non-hex, text around it', () => {
    for (const bad of [
      '',
      'not-a-uuid',
      '0b5c6a0e3f1d4c2a9e8b7d6f5a4b3c2d',
      '0b5c6a0e-3f1d-4c2a-9e8b-7d6f5a4b3c2',
      '0b5c6a0e-3f1d-4c2a-9e8b-7d6f5a4b3c2dd',
      'gb5c6a0e-3f1d-4c2a-9e8b-7d6f5a4b3c2d',
      ' 0b5c6a0e-3f1d-4c2a-9e8b-7d6f5a4b3c2d',
      '0b5c6a0e-3f1d-4c2a-9e8b-7d6f5a4b3c2d\n',
      '{0b5c6a0e-3f1d-4c2a-9e8b-7d6f5a4b3c2d}',
      "0b5c6a0e-3f1d-4c2a-9e8b-7d6f5a4b3c2d' or 1=1",
    ])
      expect(isUuid(bad), JSON.stringify(bad)).toBe(false);
  });
});
