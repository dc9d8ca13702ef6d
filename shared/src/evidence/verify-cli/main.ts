/**
 * Offline evidence verifier.
 *
 *   main.ts <export-dir> [--trust-key did:key:z6Mk...] [--expect <code|id>]
 *                        [--online <Blockfrost URL> [--api-key K] [--confirmations N]]
 *   main.ts log <checkpoints.json> --trust-key did:key:... [--include <anchor.json|checkpoint.json>]...
 *   main.ts consistency <consistency.json> [--log <checkpoints.json> --trust-key did:key:...]
 *
 * Prints one `PASS <check> <detail>` or `FAIL <check> <detail>` line per
 * check (FORMAT.md lists them). Exit code: 0 all passed, 1 something failed,
 * 2 wrong usage. An export passes only when its anchor is trusted: a local
 * checkpoint with a pinned key, or a Cardano transaction confirmed --online.
 */
import { readFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SignedCheckpoint } from '../checkpoint.js';
import { checkpointsOf, verifyConsistencyDoc, verifyLog, type ConsistencyDoc } from './log-check.js';
import { verifyExport, type CheckResult, type VerifyExportOptions } from './verify-export.js';

const USAGE =
  'usage: main.ts <export-dir> [--trust-key did:key:...] [--expect CODE|ID] [--online URL [--api-key K] [--confirmations N]]\n' +
  '       main.ts log <checkpoints.json> --trust-key did:key:... [--include FILE]...\n' +
  '       main.ts consistency <consistency.json> [--log <checkpoints.json> --trust-key did:key:...]';

/** Options that take a value. */
const VALUED = new Set(['--trust-key', '--expect', '--online', '--api-key', '--confirmations', '--include', '--log']);

/** Parsed command line. */
export interface CliArgs {
  readonly command: 'export' | 'log' | 'consistency';
  /** The export folder, or the JSON file the subcommand reads. */
  readonly target: string;
  readonly opts: Readonly<Record<string, string | undefined>>;
  readonly includes: readonly string[];
}

/** Parsed command line, or the usage error. */
export function parseArgs(argv: readonly string[]): CliArgs | { error: string } {
  const positional: string[] = [];
  const opts: Record<string, string> = {};
  const includes: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (VALUED.has(arg)) {
      const value = argv[++i];
      if (!value) return { error: `${arg} needs a value` };
      if (arg === '--include') includes.push(value);
      else opts[arg.slice(2)] = value;
    } else if (arg.startsWith('-')) return { error: `unknown option ${arg}` };
    else positional.push(arg);
  }
  const sub = positional[0] === 'log' || positional[0] === 'consistency' ? (positional.shift() as 'log' | 'consistency') : 'export';
  if (positional.length !== 1) return { error: positional.length ? 'only one export folder or file at a time' : USAGE };
  if (opts.confirmations !== undefined && !/^[1-9]\d{0,3}$/.test(opts.confirmations))
    return { error: '--confirmations needs a positive whole number' };
  return { command: sub, target: positional[0]!, opts, includes };
}

/** Options of the export check, from the parsed flags. */
function exportOptions(o: CliArgs['opts']): VerifyExportOptions {
  return {
    ...(o['trust-key'] ? { trustKey: o['trust-key'] } : {}),
    ...(o.expect ? { expect: o.expect } : {}),
    ...(o.online
      ? { online: { url: o.online, confirmations: Number(o.confirmations ?? 6), ...(o['api-key'] ? { apiKey: o['api-key'] } : {}) } }
      : {}),
  };
}

/** One output line per check. */
export function formatResult(r: CheckResult): string {
  return `${r.ok ? 'PASS' : 'FAIL'} ${r.check} ${r.detail}`;
}

async function readJsonFile(file: string): Promise<unknown> {
  return JSON.parse(await readFile(file, 'utf8')) as unknown;
}

/** A checkpoint from a bundle's anchor.json or a bare checkpoint file. */
async function readCheckpoint(file: string): Promise<SignedCheckpoint> {
  const v = (await readJsonFile(file)) as { checkpoint?: SignedCheckpoint } & SignedCheckpoint;
  return v.checkpoint ?? v;
}

async function runChecks(args: CliArgs): Promise<CheckResult[]> {
  const key = args.opts['trust-key'];
  if (args.command === 'export') return verifyExport(args.target, exportOptions(args.opts));
  try {
    if (args.command === 'log') {
      return verifyLog(checkpointsOf(await readJsonFile(args.target)), key, await Promise.all(args.includes.map(readCheckpoint)));
    }
    const log = args.opts.log ? checkpointsOf(await readJsonFile(args.opts.log)) : undefined;
    return verifyConsistencyDoc((await readJsonFile(args.target)) as ConsistencyDoc, log, key);
  } catch (err) {
    return [{ check: args.command, ok: false, detail: `cannot read input: ${(err as Error).message}` }];
  }
}

/** Runs the CLI; returns the exit code instead of exiting, so tests can call it. */
export async function runCli(argv: readonly string[], write: (line: string) => void): Promise<number> {
  const args = parseArgs(argv);
  if ('error' in args) {
    write(args.error);
    return 2;
  }
  const results = await runChecks(args);
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
