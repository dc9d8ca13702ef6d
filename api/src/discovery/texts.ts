import type { RouteDef } from '../http/route.js';
import { SERVICE_SUMMARY, limitsOf, type ServiceFacts } from './guide.js';
import { visibleRoutes } from './openapi.js';

/** Where the human and machine descriptions live; every discovery document links to them. */
export const LINKS = {
  docs: '/docs',
  openapi: '/openapi.json',
  api_index: '/api',
  health: '/api/health',
  llms: '/llms.txt',
  manifest: '/.well-known/markless.json',
  species_catalog: '/api/species/catalog',
} as const;

/** One line of a route listing. */
export interface RouteSummary {
  method: string;
  path: string;
  summary: string;
  access: RouteDef['access'];
  tag: string;
}

const summaryOf = (r: RouteDef): RouteSummary => ({
  method: r.method.toUpperCase(),
  path: r.path,
  summary: r.summary,
  access: r.access,
  tag: r.tag,
});

const isApi = (r: RouteDef) => r.path === '/api' || r.path.startsWith('/api/');

/** `GET /api`: every visible /api route, in table order. */
export function apiIndex(routes: RouteDef[], facts: ServiceFacts) {
  return {
    ok: true as const,
    service: 'markless',
    version: facts.version,
    docs: LINKS.docs,
    openapi: LINKS.openapi,
    routes: visibleRoutes(routes).filter(isApi).map(summaryOf),
  };
}

/**
 * Path prefixes of each entity kind's routes (spec 1 and 4). The manifest lists only routes
 * found in the live table under these prefixes, so it never names a route before it exists.
 */
const KIND_PREFIXES: Record<'tree' | 'fruit' | 'animal', string[]> = {
  tree: [
    '/api/enroll',
    '/api/identify',
    '/api/tree',
    '/api/trees',
    '/api/tree_views',
    '/api/verify_add',
    '/api/provenance',
    '/api/rename',
    '/api/resolve',
  ],
  fruit: ['/api/fruit'],
  animal: ['/api/animal'],
};

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** `/.well-known/markless.json`: what an agent needs before its first call. */
export function manifest(routes: RouteDef[], facts: ServiceFacts) {
  const visible = visibleRoutes(routes);
  const kinds = Object.entries(KIND_PREFIXES).map(([kind, prefixes]) => ({
    kind,
    routes: visible.filter((r) => prefixes.some((p) => under(r.path, p))).map(summaryOf),
  }));
  return {
    ok: true as const,
    service: 'markless',
    description: SERVICE_SUMMARY,
    contract_version: facts.version,
    commit: facts.commit,
    auth: {
      schemes: ['bearer', 'cookie:markless_session'],
      obtain_token: ['POST /api/signup', 'POST /api/login', 'POST /api/auth/did/verify'],
      signup_open: facts.signupOpen,
    },
    no_key_routes: visible.filter((r) => r.access === 'public').map(summaryOf),
    limits: limitsOf(facts),
    entity_kinds: kinds,
    links: LINKS,
  };
}

/**
 * `/robots.txt`: the public surface (pages, documents, public /api reads) is open to crawling;
 * the rest of /api is private. Longest match wins (RFC 9309), so the Allow lines for public
 * routes override the broad Disallow. A templated path is allowed up to its first parameter.
 */
export function robotsTxt(routes: RouteDef[]): string {
  // Sign-in endpoints are public but are not content: a crawler minting DID challenges would
  // only eat the per-IP challenge budget of real users behind the same address.
  const publicApi = visibleRoutes(routes).filter(
    (r) => isApi(r) && r.access === 'public' && r.method === 'get' && !r.path.startsWith('/api/auth/'),
  );
  const allows = [...new Set(publicApi.map((r) => (r.path === '/api' ? '/api$' : r.path.split('{')[0]!)))].sort();
  return ['User-agent: *', ...allows.map((p) => `Allow: ${p}`), 'Disallow: /api/', ''].join('\n');
}

/** `/llms.txt` (llmstxt.org shape): a one-page map for agents, generated from the live table. */
export function llmsTxt(routes: RouteDef[], facts: ServiceFacts): string {
  const visible = visibleRoutes(routes);
  const line = (r: RouteDef) => `- ${r.method.toUpperCase()} ${r.path} (${r.access}): ${r.summary}`;
  const tags = [...new Set(visible.map((r) => r.tag))];
  return [
    ...llmsPreamble(facts),
    ...tags.flatMap((tag) => [`## Routes: ${tag}`, '', ...visible.filter((r) => r.tag === tag).map(line), '']),
    '## Links',
    '',
    `- [OpenAPI 3.1](${LINKS.openapi}): every route with its schemas`,
    `- [Docs](${LINKS.docs}): the same, rendered for people`,
    `- [Route index](${LINKS.api_index}) and [manifest](${LINKS.manifest})`,
    `- [Health and features](${LINKS.health})`,
    '',
  ].join('\n');
}

function llmsPreamble(facts: ServiceFacts): string[] {
  const limits = limitsOf(facts);
  return [
    '# markless',
    '',
    `> ${SERVICE_SUMMARY}`,
    '',
    `Contract version ${facts.version}. Every answer is JSON with \`ok\`; failures are \`{ok:false, error, detail, code}\` ` +
      'with the sentence in Vietnamese (English with `Accept-Language: en`). Branch on the HTTP status.',
    '',
    '## Auth',
    '',
    '- Get a token: POST /api/signup or POST /api/login with JSON {username, password}, or DID sign-in ' +
      '(GET /api/auth/did/challenge, then POST /api/auth/did/verify).',
    `- Send \`Authorization: Bearer <token>\`. Tokens last ${facts.tokenTtlS} s. 401 means sign in again.`,
    '- Routes marked (public) need no token; (admin) needs an admin account.',
    '',
    '## Long jobs',
    '',
    `- A job-backed route waits up to ${facts.jobWaitMs / 1000} s, then answers 202 with job_id; poll GET /api/jobs/{id}.`,
    '',
    '## Limits',
    '',
    `- Single file ${limits.file_bytes} bytes, image batch ${limits.image_batch_bytes} bytes, video ${limits.video_bytes} bytes: over that is 413.`,
    '- 429 carries Retry-After (seconds): wait exactly that long, then retry.',
    '',
  ];
}
