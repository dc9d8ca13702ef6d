/**
 * OCR round trip through POST /api/care/match: label photos generated in code (Vietnamese and
 * English text rendered with DejaVu Sans, turned, blurred and noised), sent without any text,
 * read by tesseract, and the printed banned ingredient found in the catalogue.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signup, startTestApp, type TestApp } from '../support/app.js';
import { photoForm } from '../support/images.js';
import { labelImage, labelSpec } from '../support/labels.js';
import { fold } from '../../shared/src/domain/care/normalize.js';

describe('care match OCR round trip', () => {
  let app: TestApp;
  let token: string;
  beforeAll(async () => {
    app = await startTestApp({ engine: 'deterministic' });
    token = (await signup(app.url)).token;
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
  });

  // Labels 0-3: Vietnamese "Cacbofuran" turned -11.1°, English "Endosulfan" +11.3°, Vietnamese "Paraquat" +4.8°, English "Methamidophos" +10°.
  it.each([
    [0, 'carbofuran'],
    [1, 'endosulfan'],
    [2, 'paraquat'],
    [3, 'methamidophos'],
  ] as const)(
    'label %i: finds %s from the photo alone',
    async (i, id) => {
      const spec = labelSpec(i);
      expect(Math.abs(spec.angle)).toBeGreaterThan(4);
      const r = await fetch(`${app.url}/api/care/match`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'accept-language': 'en' },
        body: photoForm([await labelImage(spec)]),
      });
      expect(r.status).toBe(200);
      const b = (await r.json()) as any;
      expect(b.banned_check).toBe('ok');
      expect(b.banned.map((x: any) => x.id)).toContain(id);
      expect(b.reason).toBe('banned_not_in_catalog');
      expect(fold(b.text_read)).toMatch(spec.lang === 'vi' ? /hoat chat/ : /active ingredient/);
      expect(b.message).toMatch(/^DANGER: it contains banned ingredients/);
    },
    90_000,
  );
});
