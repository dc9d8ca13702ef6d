/**
 * `npm run verify -- <export-dir | bundle.json> [--trust-key did:key:...] [--expect CODE] [--online URL]`
 * (and the `log` and `consistency` subcommands of verify-cli/main.ts)
 *
 * The one command a newcomer runs to re-check a tree's evidence with no server: it accepts the
 * folder of verify-cli/FORMAT.md or the JSON bundle that `GET /api/provenance/{tree_id}/export`
 * answers (unpacked into a temporary folder first), then runs the offline verifier, which prints
 * one PASS/FAIL line per check. Exit code 0 all passed, 1 something failed, 2 wrong usage.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs, runCli } from './main.js';
import { writeExport } from './export-format.js';
import { fromBundleJson } from './bundle.js';

/** Runs the command; returns the exit code so tests can call it. */
export async function runVerify(argv: readonly string[], write: (line: string) => void): Promise<number> {
  const args = parseArgs(argv);
  if ('error' in args || args.command !== 'export') return runCli(argv, write);
  const target = args.target;
  let isFile = false;
  try {
    isFile = (await stat(target)).isFile();
  } catch {
    // Missing paths are the folder verifier's to report, with its own FAIL lines.
  }
  if (!isFile) return runCli(argv, write);
  const dir = await mkdtemp(join(tmpdir(), 'markless-verify-'));
  try {
    try {
      await writeExport(dir, fromBundleJson(JSON.parse(await readFile(target, 'utf8'))));
    } catch (err) {
      write(`FAIL export ${target} is not a readable evidence bundle: ${(err as Error).message}`);
      return 1;
    }
    return await runCli(
      argv.map((a) => (a === target ? dir : a)),
      write,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function isMain(): boolean {
  try {
    return !!process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  runVerify(process.argv.slice(2), (line) => process.stdout.write(`${line}\n`)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`verifier crashed: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exitCode = 2;
    },
  );
}
