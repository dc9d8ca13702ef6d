#!/usr/bin/env node
// Checks that every relative link in README.md, docs/*.md and benchmarks/results/README.md points to
// a file that exists and, when it names a #section, to a heading of that file (GitHub's anchors).
// Usage: node scripts/check-doc-links.mjs [file.md …]; exits 1 on a broken link.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const files =
  process.argv.length > 2
    ? process.argv.slice(2).map((f) => path.resolve(f))
    : [
        path.join(root, 'README.md'),
        ...readdirSync(path.join(root, 'docs'))
          .filter((f) => f.endsWith('.md'))
          .map((f) => path.join(root, 'docs', f)),
        path.join(root, 'benchmarks/results/README.md'),
      ];

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file) {
  const seen = new Map();
  const out = new Set();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

let broken = 0;
for (const file of files) {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  for (const m of text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)) {
    const target = m[1];
    if (/^[a-z]+:/i.test(target)) continue;
    const [p, hash] = target.split('#');
    const dest = p ? path.resolve(path.dirname(file), decodeURI(p)) : file;
    let problem = null;
    if (!existsSync(dest)) problem = 'no such file';
    else if (hash && statSync(dest).isFile() && dest.endsWith('.md') && !anchors(dest).has(hash)) problem = 'no such section';
    if (problem) {
      broken++;
      console.log(`${path.relative(root, file)}: ${target} (${problem})`);
    }
  }
}
console.log(broken ? `${broken} broken link(s)` : `links ok in ${files.length} files`);
process.exit(broken ? 1 : 0);
