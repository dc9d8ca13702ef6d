/**
 * Loads @techstark/opencv-js once. Its module object carries a `then` that
 * resolves to itself, so awaiting it — or importing it with `import`, whose
 * namespace then looks like a thenable to dynamic-import loaders such as
 * vitest's — hangs forever. So: load it with `require`, wait on
 * `onRuntimeInitialized`, and drop `then` before handing it out.
 */
import { createRequire } from 'node:module';

// The bundled typings are loose; the engine uses a small, checked surface.
export type CV = any;

let ready: Promise<CV> | undefined;

export function loadOpenCV(): Promise<CV> {
  ready ??= new Promise<{ cv: CV }>((resolveCv) => {
    const cv = createRequire(import.meta.url)('@techstark/opencv-js') as CV;
    const done = (): void => {
      delete cv.then;
      resolveCv({ cv });
    };
    if (cv.Mat && cv.AKAZE) done();
    else cv.onRuntimeInitialized = done;
  }).then((box) => box.cv);
  return ready;
}
