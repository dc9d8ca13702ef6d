import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Where ../shared/datasets/<name> sits beside the checkout (read-only; never copied into the repository). */
export const datasetRoot = (name: string) => path.resolve(import.meta.dirname, '../../../shared/datasets', name);

/** A multipart body of a dataset's photos (as `files`) and form fields, read from the dataset itself. */
export function datasetForm(root: string, files: string[], fields: Record<string, string> = {}): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  for (const file of files) f.append('files', new Blob([readFileSync(path.join(root, file))], { type: 'image/jpeg' }), path.basename(file));
  return f;
}
