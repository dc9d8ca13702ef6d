import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../../../shared/src/domain/errors.js';

/** The models shipped with the service (`models/` at the repository root). */
export const BUNDLED_MODELS_DIR = path.resolve(fileURLToPath(new URL('../../../models', import.meta.url)));

/**
 * The folder of a candidate model named in `POST /api/admin/models`, confined to the models
 * folders (`roots`). The request's `dir` is a path relative to a root or an absolute path inside
 * one. Anything else, and anything that does not exist or whose real path (symlinks followed)
 * leaves the roots, gets one and the same 422: the answer must not tell an admin token holder
 * whether some folder elsewhere on the server exists (a path oracle).
 */
export function candidateModelDir(dir: string, roots: readonly string[]): string {
  const refused = () => new AppError(422, 'model_dir_not_allowed');
  const inside = (p: string, root: string) => {
    const rel = path.relative(root, p);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  };
  if (dir.includes('\0')) throw refused();
  for (const root of roots.map((r) => path.resolve(r))) {
    const wanted = path.resolve(root, dir);
    // Lexical check first, so a path outside never reaches the file system at all.
    if (!inside(wanted, root)) continue;
    let real: string;
    let realRoot: string;
    try {
      real = realpathSync(wanted);
      realRoot = realpathSync(root);
    } catch {
      continue;
    }
    if (inside(real, realRoot)) return real;
  }
  throw refused();
}
