// `npm test`: the typecheck, lint, format and doc-link checks beside the web build and the first tier, then the vitest projects
// (vitest.config.ts) one after another, fastest first, stopping at the first that fails. Ends
// with the ten slowest files and one plain line, "N passed, N failed, N skipped", summed over the
// tiers that ran, which CI reads. Arguments go to every vitest run (e.g. a file filter).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const TIERS = ['unit', 'medium', 'e2e', 'browser', 'real'];
const args = process.argv.slice(2);
const dir = mkdtempSync(path.join(os.tmpdir(), 'markless-tiers-'));
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/** Run a command; `quiet` keeps its output to print only on failure. Resolves with code and output. */
function run(cmd, argv, quiet = false) {
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr?.on('data', (d) => (out += d));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out }));
  });
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const totals = { passed: 0, failed: 0, skipped: 0 };
const files = [];
const lines = [];
let status = 0;

try {
  const t0 = Date.now();
  // The static checks run beside the build and the first tier; any failure stops the run there.
  const checks = [
    ['tsc', [npx, ['tsc', '-p', 'tsconfig.json']]],
    ['lint', [npx, ['eslint', '--max-warnings', '0', '.']]],
    ['format', [npx, ['prettier', '--check', '.']]],
    ['links', ['node', ['scripts/check-doc-links.mjs']]],
  ].map(([name, [cmd, argv]]) => ({ name, done: run(cmd, argv, true).then((r) => ({ ...r, ms: Date.now() - t0 })) }));
  const build = await run('node', ['web/build.mjs']);
  if (build.code !== 0) throw new Error('the web build failed');

  for (const tier of TIERS) {
    const report = path.join(dir, `${tier}.json`);
    const start = Date.now();
    console.log(`\n── ${tier} ──`);
    const r = await run(npx, [
      'vitest',
      'run',
      '--project',
      tier,
      '--passWithNoTests',
      '--reporter=default',
      '--reporter=json',
      `--outputFile=${report}`,
      ...args,
    ]);
    const ms = Date.now() - start;
    let json;
    try {
      json = JSON.parse(readFileSync(report, 'utf8'));
    } catch {
      json = { numPassedTests: 0, numFailedTests: 1, numPendingTests: 0, numTodoTests: 0, testResults: [] };
    }
    const counts = { passed: json.numPassedTests, failed: json.numFailedTests, skipped: json.numPendingTests + json.numTodoTests };
    for (const k of Object.keys(totals)) totals[k] += counts[k];
    for (const f of json.testResults) files.push({ name: path.relative(process.cwd(), f.name), ms: f.endTime - f.startTime });
    lines.push(
      `${tier.padEnd(8)} ${seconds(ms).padStart(9)}   ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`,
    );
    if (tier === TIERS[0]) {
      // The typecheck, lint, format and doc-link checks ran beside the build and this tier.
      const failed = [];
      for (const c of checks) {
        const r = await c.done;
        lines.push(`${c.name.padEnd(8)} ${seconds(r.ms).padStart(9)}   ${r.code === 0 ? 'ok' : 'FAILED'} (beside the above)`);
        if (r.code !== 0) {
          process.stdout.write(`\n── ${c.name} ──\n${r.out}`);
          totals.failed += 1;
          failed.push(c.name);
        }
      }
      if (failed.length) throw new Error(`the static checks failed (${failed.join(', ')}); the tiers after ${tier} did not run`);
    }
    if (r.code !== 0) {
      if (counts.failed === 0) totals.failed += 1;
      throw new Error(`tier ${tier} failed; the tiers after it did not run`);
    }
  }
} catch (e) {
  status = 1;
  lines.push(String(e.message ?? e));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log('\nTen slowest files:');
for (const f of files.sort((a, b) => b.ms - a.ms).slice(0, 10)) console.log(`${seconds(f.ms).padStart(9)}  ${f.name}`);
console.log('\nTiers:');
for (const l of lines) console.log(l);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(status);
