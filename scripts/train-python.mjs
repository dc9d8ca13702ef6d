#!/usr/bin/env node
// Runs a training script under the interpreter that trains: TRAIN_PYTHON, else Debian's
// /usr/bin/python3, where python3-torch installs (the same rule as workers/src/learn/backbone.ts;
// the python3 first on PATH may be another one without torch or numpy). Arguments pass through.
//   node scripts/train-python.mjs training/synth/cli.py --kind animal --identities 10 --out DIR
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [script, ...args] = process.argv.slice(2);
if (!script) {
  console.error('usage: node scripts/train-python.mjs <script.py> [args…]');
  process.exit(2);
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const python = process.env.TRAIN_PYTHON ?? '/usr/bin/python3';
const child = spawn(python, [path.resolve(root, script), ...args], { stdio: 'inherit' });
child.on('error', (e) => {
  console.error(`cannot run ${python}: ${e.message} (set TRAIN_PYTHON to a python3 with numpy, Pillow and torch)`);
  process.exit(127);
});
child.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
