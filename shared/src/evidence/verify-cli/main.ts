/**
 * Offline evidence verifier.
 *
 *   npx tsx shared/src/evidence/verify-cli/main.ts <export-dir> [--trust-key did:key:z6Mk...]
 *
 * Prints one `PASS <check> <detail>` or `FAIL <check> <detail>` line per
 * check (FORMAT.md lists them). Exit code: 0 all passed, 1 something failed,
 * 2 wrong usage.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { verifyExport, type CheckResult } from './verify-export.js';

const USAGE = 'usage: main.ts <export-dir> [--trust-key did:key:...]';

/** Parsed command line, or the usage error. */
export function parseArgs(argv: readonly string[]): { dir: string; trustKey?: string } | { error: string } {
  let dir: string | undefined;
  let trustKey: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--trust-key') {
      trustKey = argv[++i];
      if (!trustKey) return { error: '--trust-key needs a did:key' };
    } else if (arg.startsWith('-')) {
      return { error: `unknown option ${arg}` };
    } else if (dir === undefined) {
      dir = arg;
    } else {
      return { error: 'only one export folder at a time' };
    }
  }
  if (dir === undefined) return { error: USAGE };
  return trustKey === undefined ? { dir } : { dir, trustKey };
}

/** One output line per check. */
export function formatResult(r: CheckResult): string {
  return `${r.ok ? 'PASS' : 'FAIL'} ${r.check} ${r.detail}`;
}

/** Runs the CLI; returns the exit code instead of exiting, so tests can call it. */
export async function runCli(argv: readonly string[], write: (line: string) => void): Promise<number> {
  const args = parseArgs(argv);
  if ('error' in args) {
    write(args.error);
    return 2;
  }
  const results = await verifyExport(args.dir, args.trustKey === undefined ? {} : { trustKey: args.trustKey });
  for (const r of results) write(formatResult(r));
  const failed = results.filter((r) => !r.ok).length;
  write(failed === 0 ? `all ${results.length} checks passed` : `${failed} of ${results.length} checks failed`);
  return failed === 0 ? 0 : 1;
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  runCli(process.argv.slice(2), (line) => process.stdout.write(`${line}\n`)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`verifier crashed: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exitCode = 2;
    },
  );
}
