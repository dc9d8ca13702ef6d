import { defineRoute, raw, type RouteDef } from '../http/route.js';
import { animalPage } from '../web/animal-pages.js';

/** The two animal HTML pages (the page files live in api/src/web/). */
export function animalPageRoutes(): RouteDef[] {
  return (['demo', 'field'] as const).map((variant) =>
    defineRoute({
      method: 'get',
      path: `/api/animal/${variant}`,
      tag: 'animals',
      access: 'public',
      feature: 'animal-pages',
      summary:
        variant === 'demo'
          ? 'Animal demo page: enrol, identify, see candidates with photos (HTML)'
          : 'Animal field page: enrol, identify, scan, label, manage (HTML)',
      description: 'The page itself is public; every call it makes needs sign-in (the session cookie set by /api/login).',
      responses: { 200: { description: 'the page', contentType: 'text/html' } },
      handler: async () => {
        const p = await animalPage(variant);
        return raw(200, p.html, 'text/html; charset=utf-8', {
          'Cache-Control': 'no-cache',
          'Content-Security-Policy': p.csp,
          'X-Content-Type-Options': 'nosniff',
          'Referrer-Policy': 'no-referrer',
        });
      },
    }),
  );
}
