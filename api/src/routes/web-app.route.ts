import { z } from 'zod';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { serveWebFile, webFile } from '../web/static-files.js';

const validators = (ctx: { get(h: string): string }) => ({
  ifNoneMatch: ctx.get('if-none-match'),
  ifModifiedSince: ctx.get('if-modified-since'),
});

/**
 * The field web app (built from `web/` by `npm run build`) at the four paths the apps and
 * printed guides use (spec 9: all must remain), and its modules and stylesheet under /app/.
 */
export function webAppRoutes(): RouteDef[] {
  // `/` first: the app is what a person opening the service wants (issue 24); Swagger is at /docs.
  const paths = ['/', '/TreeIdentity', '/TreeIdentity/', '/identify', '/Identify'];
  const pages = paths.map((path, i) =>
    defineRoute({
      method: 'get',
      path,
      tag: 'discovery',
      access: 'public',
      feature: 'field-ui',
      summary:
        i === 0
          ? 'Field web app: sign in, enrol and identify trees, fruit and animals, timelines, herd counts, fruit batches (HTML)'
          : `Field web app (same page as ${paths[0]})`,
      description:
        'Cache-Control: no-cache; answers 304 when If-Modified-Since is not older than Last-Modified. Vietnamese first, English available; signs in with the same-origin session cookie and never shows a token.',
      responses: {
        200: { description: 'the page', contentType: 'text/html' },
        304: { description: 'not modified since If-Modified-Since' },
      },
      handler: async (_input, ctx) => serveWebFile('index.html', validators(ctx)),
    }),
  );
  // The service worker must be served from the root to control the app at `/` and its other paths.
  const rootFiles: Array<[string, string, string]> = [
    ['/sw.js', 'sw.js', "Service worker of the field app: keeps the shell offline (photos taken offline wait in the page's own queue)"],
    ['/manifest.webmanifest', 'manifest.webmanifest', 'Web app manifest (install to the home screen)'],
  ];
  return [
    ...pages,
    ...rootFiles.map(([path, file, summary]) =>
      defineRoute({
        method: 'get',
        path,
        tag: 'discovery',
        access: 'public',
        feature: 'field-ui',
        summary,
        responses: { 200: { description: 'the file', contentType: 'application/octet-stream' }, 304: { description: 'not modified' } },
        handler: async (_input, ctx) => serveWebFile(file, validators(ctx)),
      }),
    ),
    defineRoute({
      method: 'get',
      path: '/app/{file}',
      tag: 'discovery',
      access: 'public',
      feature: 'field-ui',
      summary: 'Scripts and stylesheet of the field web app and the trace page (served from this origin, no CDN)',
      params: z.object({ file: z.string().max(64).describe('a built file name, e.g. `main.js`, `app.css`') }),
      responses: {
        200: { description: 'the file; Cache-Control: no-cache with ETag and Last-Modified', contentType: 'application/octet-stream' },
        304: { description: 'not modified' },
        404: { description: 'not a file of the app' },
      },
      handler: async ({ params }, ctx) => {
        if (params.file.endsWith('.html') || !(await webFile(params.file))) throw ERRORS.notFound();
        return serveWebFile(params.file, validators(ctx));
      },
    }),
  ];
}
