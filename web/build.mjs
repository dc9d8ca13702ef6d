// The web app's build: type-check and compile web/src/*.ts to plain ES modules with the
// project's own TypeScript, then copy the HTML and CSS beside them. No bundler, no download:
// browsers load the modules as they are, from this origin only.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const src = path.join(here, 'src');
const dist = path.join(here, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(here, 'tsconfig.json')], { stdio: 'inherit' });
for (const f of readdirSync(src)) if (/\.(html|css|svg|webmanifest)$/.test(f)) copyFileSync(path.join(src, f), path.join(dist, f));
// The shopper's QR scanner (web/src/qr-scan.ts) decodes with jsQR (Apache-2.0, node_modules/jsqr/LICENSE).
// Its browser build is a UMD script: given a `module` to fill, it loads as one more ES module of
// this origin (web/src/jsqr.d.ts types it), and the service worker caches it with the rest.
const requireHere = createRequire(import.meta.url);
const jsqr = readFileSync(requireHere.resolve('jsqr'), 'utf8');
writeFileSync(
  path.join(dist, 'jsqr.js'),
  `/*! jsQR ${requireHere('jsqr/package.json').version}, https://github.com/cozmo/jsQR, Apache License 2.0 */\n` +
    `const module = { exports: {} };\nconst exports = module.exports;\n${jsqr}\nexport default module.exports;\n`,
);
// The installable app's icons, drawn from the one SVG (a manifest needs PNG sizes for every platform).
const sharp = createRequire(import.meta.url)('sharp');
for (const size of [192, 512])
  await sharp(path.join(src, 'icon.svg'))
    .resize(size, size)
    .png()
    .toFile(path.join(dist, `icon-${size}.png`));
// The service worker caches every file of this build at install, under a name that changes with
// their bytes (web/src/sw.ts): an app opened offline finds all its modules, and a new build
// replaces the old cache instead of mixing with it.
const shell = readdirSync(dist)
  .filter((f) => f !== 'sw.js' && !f.endsWith('.html') && !f.endsWith('.map'))
  .sort();
const hash = createHash('sha256');
for (const f of shell) hash.update(f).update(readFileSync(path.join(dist, f)));
const swFile = path.join(dist, 'sw.js');
const sw = readFileSync(swFile, 'utf8');
const build = JSON.stringify(JSON.stringify({ version: hash.digest('hex').slice(0, 16), files: shell }));
if (!sw.includes("'__MARKLESS_BUILD__'")) throw new Error('web/src/sw.ts lost its build placeholder');
writeFileSync(swFile, sw.replace("'__MARKLESS_BUILD__'", build));
console.log(`web app built into ${path.relative(process.cwd(), dist) || dist}`);
