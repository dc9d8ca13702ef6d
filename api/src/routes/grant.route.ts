import { z } from 'zod';
import { Kind } from '../../../shared/src/domain/jobs.js';
import type { Services } from '../services/index.js';
import { defineRoute, type RouteDef } from '../http/route.js';
import { Ok, errorResponse } from './schemas.js';

const ACCESS_ALIASES: Record<string, 'read' | 'write'> = {
  read: 'read',
  'read-only': 'read',
  read_only: 'read',
  ro: 'read',
  write: 'write',
  'read-write': 'write',
  read_write: 'write',
  rw: 'write',
};
const Access = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => v in ACCESS_ALIASES, { message: 'expected read (read-only) or write (read-write)' })
  .transform((v) => ACCESS_ALIASES[v]!);
const Grantee = z.string().trim().min(1).max(64).describe('the account to share with: its username or account id');
const GrantOut = z.object({
  owner: z.object({ id: z.string(), username: z.string() }),
  grantee: z.object({ id: z.string(), username: z.string() }),
  kind: Kind,
  access: z.enum(['read', 'write']),
  created_at: z.string(),
  updated_at: z.string(),
});
const common = { 401: errorResponse('not signed in'), 404: errorResponse('no such account (or, on revoke, no active grant)') };

/**
 * Sharing an orchard with another account: the only thing that ever crosses accounts. A grant
 * covers every individual of one kind of the owner (trees by default), read-only or read-write.
 */
export function grantRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/grant',
      tag: 'accounts',
      access: 'user',
      feature: 'grants',
      summary: 'Share your trees with another account, read-only or read-write',
      description:
        'Form or JSON: grantee (username or account id), access (`read` = read-only, `write` = read-write; default read), kind (default tree). ' +
        'The grantee then sees your trees (GET /api/trees?include_shared=1, /api/tree_views) and matches against them; `write` also lets them rename. ' +
        'Publishing stays with you. Granting again changes the access level. Revoke with POST /api/grant/revoke.',
      bodyType: 'form',
      body: z.object({ grantee: Grantee, access: Access.default('read'), kind: Kind.default('tree') }),
      responses: {
        200: { description: 'granted', schema: Ok.extend({ grant: GrantOut }) },
        400: errorResponse('granting to yourself'),
        ...common,
      },
      handler: async ({ body, caller }) => ({
        ok: true,
        grant: await s.grants.grant(caller!, body.grantee, body.kind, body.access),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/grant/revoke',
      tag: 'accounts',
      access: 'user',
      feature: 'grants',
      summary: 'Withdraw a grant you gave; takes effect on the next request',
      bodyType: 'form',
      body: z.object({ grantee: Grantee, kind: Kind.default('tree') }),
      responses: { 200: { description: 'revoked', schema: Ok.extend({ revoked: z.literal(true) }) }, ...common },
      handler: async ({ body, caller }) => {
        await s.grants.revoke(caller!, body.grantee, body.kind);
        return { ok: true, revoked: true };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/grants',
      tag: 'accounts',
      access: 'user',
      feature: 'grants',
      summary: 'Grants you gave and grants you received (active only)',
      responses: {
        200: { description: 'the grants', schema: Ok.extend({ given: z.array(GrantOut), received: z.array(GrantOut) }) },
        401: errorResponse('not signed in'),
      },
      handler: async ({ caller }) => ({ ok: true, ...(await s.grants.list(caller!.account_id)) }),
    }),
  ];
}
