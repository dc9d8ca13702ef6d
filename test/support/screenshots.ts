import { mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Where the browser tests save their screenshots: an ignored folder, so that a test run leaves the
 * checkout as it found it. `npm run screenshots` points it at docs/screenshots, the ones the
 * documentation shows.
 */
export const SCREENSHOTS = path.resolve(import.meta.dirname, '../..', process.env.SCREENSHOTS_DIR ?? 'test-artifacts/screenshots');

/** The path for screenshot `file` (its folder made if need be). */
export function screenshotPath(file: string): string {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return path.join(SCREENSHOTS, file);
}
