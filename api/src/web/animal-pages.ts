import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** A built page: the HTML and the CSP that allows exactly its one inline script. */
export interface BuiltPage {
  html: string;
  csp: string;
}

const file = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));

/**
 * The animal pages are one HTML shell and one script (kept as plain files, never strings in a
 * route); the demo adds its intro and a ready farm_id. The script is inlined so the page needs
 * no second request, and pinned in the CSP by its hash.
 */
async function build(variant: 'field' | 'demo'): Promise<BuiltPage> {
  const [shell, app, intro] = await Promise.all([
    readFile(file('animal-field.html'), 'utf8'),
    readFile(file('animal-app.js'), 'utf8'),
    readFile(file('animal-demo-intro.html'), 'utf8'),
  ]);
  let html = shell.replace('<script>/*APP*/</script>', () => `<script>${app}</script>`);
  if (variant === 'demo') {
    html = html
      .replace('<!--INTRO-->', () => intro)
      .replace('<input id="farm" placeholder="farm_id" value="">', '<input id="farm" placeholder="farm_id" value="demo-farm">');
  }
  const hash = createHash('sha256').update(app, 'utf8').digest('base64');
  const csp = [
    "default-src 'none'",
    `script-src 'sha256-${hash}'`,
    "connect-src 'self'",
    "img-src 'self' data: blob:",
    "style-src 'unsafe-inline'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');
  return { html, csp };
}

const cache = new Map<string, Promise<BuiltPage>>();

/** The page, built once; a failed read is not kept, so the next request tries again. */
export function animalPage(variant: 'field' | 'demo'): Promise<BuiltPage> {
  let p = cache.get(variant);
  if (!p) {
    p = build(variant).catch((e) => {
      cache.delete(variant);
      throw e;
    });
    cache.set(variant, p);
  }
  return p;
}
