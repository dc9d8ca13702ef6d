import { z } from 'zod';
import type { Container } from '../../../shared/src/container.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import { defineRoute, raw, type RouteDef } from '../http/route.js';
import { assetReply, DOC_ASSETS, docsPage, loadAsset } from '../discovery/docs-page.js';
import type { ServiceFacts } from '../discovery/guide.js';
import { anchoringFacts } from '../services/anchor-public.service.js';
import { buildOpenApi } from '../discovery/openapi.js';
import { CatalogOut, SpeciesCatalog } from '../discovery/species-catalog.js';
import { apiIndex, llmsTxt, manifest, robotsTxt } from '../discovery/texts.js';
import { Ok } from './schemas.js';

const RouteSummary = z.object({
  method: z.string(),
  path: z.string(),
  summary: z.string(),
  access: z.enum(['public', 'optional', 'user', 'admin']),
  tag: z.string(),
});
const Manifest = Ok.extend({
  service: z.string(),
  description: z.string(),
  contract_version: z.string(),
  commit: z.string(),
  auth: z.object({ schemes: z.array(z.string()), obtain_token: z.array(z.string()), signup_open: z.boolean() }),
  no_key_routes: z.array(RouteSummary).describe('routes that need no token'),
  limits: z.record(z.string(), z.number()).describe('byte limits, token lifetime (s) and job wait (ms)'),
  entity_kinds: z.array(z.object({ kind: z.enum(['tree', 'fruit', 'animal']), routes: z.array(RouteSummary) })),
  links: z.record(z.string(), z.string()),
  anchoring: z
    .object({
      backend: z.enum(['local', 'cardano']),
      public_key: z.string().nullable().describe('did:key that signs local checkpoints: pass it to the verifier with --trust-key'),
      key_fingerprint: z.string().nullable(),
      log_id: z.string().nullable(),
      checkpoints: z.string().describe('the public, paged checkpoint log'),
    })
    .describe('how this service anchors, and the key a verifier should pin'),
});
const textHeaders = { 'Cache-Control': 'public, max-age=300', 'X-Content-Type-Options': 'nosniff' };

/**
 * The documents that describe the service: `/openapi.json`, `/api`, `/docs` and `/`, the
 * text files and the manifest, plus the species catalogue. Each reads `allRoutes()` at request
 * time, so it always describes exactly the table the router mounted, itself included.
 */
export function discoveryRoutes(c: Container, facts: ServiceFacts, allRoutes: () => RouteDef[]): RouteDef[] {
  const catalog = new SpeciesCatalog(c.config.speciesCatalogPath);
  // The table is fixed once the app is built, so the document is generated once, on first use.
  let openapi: ReturnType<typeof buildOpenApi> | undefined;
  return [
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      tag: 'discovery',
      access: 'public',
      feature: 'openapi',
      summary: 'This API as an OpenAPI 3.1 document, generated from the live route table',
      responses: { 200: { description: 'the OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
      handler: async () => (openapi ??= buildOpenApi(allRoutes(), facts)),
    }),
    defineRoute({
      method: 'get',
      path: '/api',
      tag: 'discovery',
      access: 'public',
      feature: 'api-index',
      summary: 'Every /api route with its method and summary, plus links to the docs',
      responses: {
        200: {
          description: 'the route index',
          schema: Ok.extend({
            service: z.string(),
            version: z.string(),
            docs: z.string(),
            openapi: z.string(),
            routes: z.array(RouteSummary),
          }),
        },
      },
      handler: async () => apiIndex(allRoutes(), facts),
    }),
    ...pageRoutes(),
    ...textRoutes(facts, allRoutes, anchoringFacts(c)),
    defineRoute({
      method: 'get',
      path: '/api/species/catalog',
      tag: 'discovery',
      access: 'public',
      feature: 'species-catalog',
      summary: 'Species (trees, fruit crops, farm animals) and care activities the service knows',
      description: 'If the catalogue file cannot be read, the lists are empty and `error` says so (still 200).',
      responses: { 200: { description: 'the catalogue', schema: CatalogOut } },
      handler: async ({ lang }) => catalog.body(lang),
    }),
  ];
}

/** `/docs` and the files it loads; every asset comes from this origin (`/` is the field app: web-app.route.ts). */
function pageRoutes(): RouteDef[] {
  const page = {
    tag: 'discovery',
    access: 'public',
    feature: 'docs',
    responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
  } as const;
  return [
    defineRoute({ ...page, method: 'get', path: '/docs', summary: 'Interactive API documentation (Swagger UI)', handler: docsPage }),
    defineRoute({
      method: 'get',
      path: '/docs/assets/{file}',
      tag: 'discovery',
      access: 'public',
      feature: 'docs',
      summary: 'Static files of the documentation page (Swagger UI, served locally)',
      params: z.object({
        file: z
          .string()
          .max(64)
          .describe(`one of: ${Object.keys(DOC_ASSETS).join(', ')}`),
      }),
      responses: {
        200: { description: 'the file, with its own content type and caching headers', contentType: 'application/octet-stream' },
        304: { description: 'not modified (If-None-Match matched the ETag)' },
        404: { description: 'not one of the documentation files' },
      },
      handler: async ({ params, query }, ctx) => {
        const asset = loadAsset(params.file);
        if (!asset) throw ERRORS.notFound();
        return assetReply(await asset, ctx.get('if-none-match'), (query as Record<string, unknown>).v);
      },
    }),
  ];
}

/** The text files and the manifest, for crawlers and agents. */
function textRoutes(facts: ServiceFacts, allRoutes: () => RouteDef[], anchoring: ReturnType<typeof anchoringFacts>): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/llms.txt',
      tag: 'discovery',
      access: 'public',
      feature: 'llms-txt',
      summary: 'One-page text map of the service for LLM agents',
      responses: { 200: { description: 'markdown text', contentType: 'text/plain' } },
      handler: async () => raw(200, llmsTxt(allRoutes(), facts), 'text/plain; charset=utf-8', textHeaders),
    }),
    defineRoute({
      method: 'get',
      path: '/robots.txt',
      tag: 'discovery',
      access: 'public',
      feature: 'robots-txt',
      summary: 'Crawling rules: the public surface is open, private /api routes are not',
      responses: { 200: { description: 'robots.txt (RFC 9309)', contentType: 'text/plain' } },
      handler: async () => raw(200, robotsTxt(allRoutes()), 'text/plain; charset=utf-8', textHeaders),
    }),
    defineRoute({
      method: 'get',
      path: '/.well-known/markless.json',
      tag: 'discovery',
      access: 'public',
      feature: 'manifest',
      summary: 'Service manifest: no-key routes, limits, entity kinds with their routes, links',
      responses: { 200: { description: 'the manifest', schema: Manifest } },
      handler: async () => ({ ...manifest(allRoutes(), facts), anchoring }),
    }),
  ];
}
