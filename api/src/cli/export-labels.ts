/**
 * `npm run export:labels -- --url http://127.0.0.1:3000 --token T --out ./labels [--owner ID | --all] [--limit 1000]`
 *
 * Downloads your labelled data (admins: one owner's with --owner, everyone's with --all) into a
 * folder, printing progress; run it again after an interruption and it resumes from `.cursor`.
 * The token may also come from MARKLESS_TOKEN.
 */
import { exportToFolder } from '../../../shared/src/datasci/export-folder.js';

const argv = process.argv.slice(2);
const arg = (k: string): string | undefined => (argv.includes(`--${k}`) ? argv[argv.indexOf(`--${k}`) + 1] : undefined);
const token = arg('token') ?? process.env.MARKLESS_TOKEN;
const out = arg('out');
if (!token || !out) throw new Error('usage: --url <service> --token <token> --out <folder> [--owner <account id> | --all] [--limit N]');
const r = await exportToFolder({
  url: arg('url') ?? 'http://127.0.0.1:3000',
  token,
  out,
  owner: arg('owner'),
  all: argv.includes('--all'),
  limit: Number(arg('limit') ?? 1000),
  onProgress: (done, total) => process.stderr.write(`exported ${done}/${total} items\n`),
});
console.log(JSON.stringify({ out, ...r }));
