import { describe, expect, it } from 'vitest';
import { ASSET_NAME, dataBlock, notModifiedSince } from './static-files.js';

describe('serving the built web app', () => {
  it('embeds page data that no string inside can break out of', () => {
    const hostile = { species: '</script><script>alert(1)</script>', note: '<!-- x' };
    const block = dataBlock(hostile);
    expect(block.match(/<\/script>/g)).toHaveLength(1);
    expect(block.endsWith('</script>')).toBe(true);
    expect(block).not.toContain('<!--');
    const inner = block.replace(/^<script type="application\/json" id="page-data">/, '').replace(/<\/script>$/, '');
    expect(JSON.parse(inner)).toEqual(hostile);
  });

  it('serves only flat built file names', () => {
    for (const ok of ['main.js', 'app.css', 'view-enrol.js', 'index.html']) expect(ASSET_NAME.test(ok), ok).toBe(true);
    for (const bad of ['../package.json', '.env', 'a/b.js', 'main.ts', 'x.js.map', 'Main.js', ''])
      expect(ASSET_NAME.test(bad), bad).toBe(false);
  });

  it('answers 304 only when the client copy is at least as new, to the second', () => {
    const lm = Math.floor(Date.parse('2026-11-23T03:00:00Z') / 1000);
    expect(notModifiedSince('Mon, 23 Nov 2026 03:00:00 GMT', lm)).toBe(true);
    expect(notModifiedSince('Mon, 23 Nov 2026 02:59:59 GMT', lm)).toBe(false);
    expect(notModifiedSince('not a date', lm)).toBe(false);
    expect(notModifiedSince('', lm)).toBe(false);
  });
});
