import { ERRORS } from '../../../shared/src/domain/errors.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import type { Logger } from '../../../shared/src/logger.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { TreeListRow, TreesRepo } from '../../../shared/src/repos/trees.repo.js';
import type { Standing } from './grants.service.js';
import type { individualAccess } from '../../../shared/src/access/standing.js';

/** Who may see which traceability answer: see migration 003. */
export type Visibility = 'private' | 'restricted' | 'public';

/** A tree as its owner (or a grantee) sees it in lists. */
export interface TreeSummary {
  tree_id: string;
  owner_id: string;
  access: 'owner' | 'read' | 'write';
  farm_id: string | null;
  species: string | null;
  name: string | null;
  lat: number | null;
  lon: number | null;
  code: string | null;
  visibility: Visibility;
  image_count: number;
  created_at: string;
}

/** A tree row plus how the caller stands towards it. */
export interface TreeAccess {
  id: string;
  owner_id: string;
  standing: Exclude<Standing, null>;
}

/** Longest name kept after sanitising; longer names are cut at a character boundary. */
export const NAME_MAX_CHARS = 100;

/**
 * Clean a display name: Unicode NFC, no control, format (zero-width, bidi) or markup characters,
 * whitespace collapsed. A name is shown on printed labels and public pages, so anything that
 * could render differently from what the owner typed, or inject markup, goes.
 */
export function sanitizeName(input: string): string {
  const cleaned = input
    .normalize('NFC')
    .replace(/[\p{Cf}\p{Co}\p{Cs}]/gu, '')
    .replace(/\p{Cc}/gu, ' ')
    .replace(/<[^<>]*>/g, ' ')
    .replace(/[<>`"\\{}]/g, '')
    .replace(/\s+/gu, ' ')
    .trim();
  return [...cleaned].slice(0, NAME_MAX_CHARS).join('').trim();
}

function toSummary(r: TreeListRow, callerId: string): TreeSummary {
  return {
    tree_id: r.id,
    owner_id: r.owner_id,
    access: r.owner_id === callerId ? 'owner' : (r.access as 'read' | 'write'),
    farm_id: r.farm_id ?? null,
    species: r.species ?? null,
    name: r.name ?? null,
    lat: r.lat ?? null,
    lon: r.lon ?? null,
    code: r.code ?? null,
    visibility: r.visibility,
    image_count: Number(r.image_count),
    created_at: r.created_at.toISOString(),
  };
}

/** What the trees service uses. */
export interface TreesDeps {
  db: Queryable;
  /** The access policy's answer for an individual (shared/src/access/standing.ts). */
  access: typeof individualAccess;
  trees: Pick<TreesRepo, 'list' | 'setName' | 'setVisibility'>;
  /** A tree's printed code (shared/src/repos/evidence/tree-record.ts), null for fruit and animals. */
  recordCode: (db: Queryable, treeId: string) => Promise<string | null>;
  /** Pins a published tree's record and photos to IPFS; null when no IPFS node is configured. */
  pin: ((treeId: string) => Promise<unknown>) | null;
  logger: Pick<Logger, 'warn'>;
}

/** Listing, renaming and publishing trees; every read and write goes through `access()`. */
export function createTreesService(deps: TreesDeps) {
  const { db, trees } = deps;

  /**
   * The tree (or, with `kind`, the fruit or animal) as the caller may use it. A missing tree and another account's tree (without a
   * grant) are the same 404, so ids cannot be probed; a grant that is too weak is a 403.
   */
  async function access(callerId: string, treeId: string, need: 'read' | 'write' | 'owner', kind: Kind = 'tree'): Promise<TreeAccess> {
    // A malformed id names no tree: the access repository answers it as missing, without a query.
    const { decision, individual, standing } = await deps.access(db, callerId, treeId, kind, need);
    if (decision === 'not_found') throw ERRORS.notFound();
    if (decision === 'forbidden') throw ERRORS.forbidden();
    return { id: individual!.id, owner_id: individual!.owner_id, standing: standing! };
  }

  async function list(callerId: string, opts: { farm_id?: string; include_shared?: boolean }): Promise<TreeSummary[]> {
    const rows = await trees.list(db, callerId, { farmId: opts.farm_id ?? null, includeShared: opts.include_shared ?? false });
    return rows.map((row) => toSummary(row, callerId));
  }

  return {
    access,
    list,

    /** Rename after sanitising; `null` when nothing is left (the route answers 200 with ok:false). */
    async rename(callerId: string, treeId: string, raw: string, kind: Kind = 'tree'): Promise<{ tree_id: string; name: string } | null> {
      const tree = await access(callerId, treeId, 'write', kind);
      const name = sanitizeName(raw);
      if (!name) return null;
      await trees.setName(db, tree.id, name);
      return { tree_id: tree.id, name };
    },

    /** Owner only: choose what `/api/resolve/{code}` and `/t/{code}` reveal about this tree (or, with `kind`, whether a fruit is public). */
    async setVisibility(callerId: string, treeId: string, visibility: Visibility, kind: Kind = 'tree') {
      const tree = await access(callerId, treeId, 'owner', kind);
      await trees.setVisibility(db, tree.id, visibility);
      const code = await deps.recordCode(db, tree.id);
      // Only a published record goes to the public IPFS network; best effort, like every pin.
      if (visibility === 'public' && deps.pin) {
        await deps.pin(tree.id).catch((err: unknown) => deps.logger.warn({ err, tree: tree.id }, 'pinning to Kubo failed'));
      }
      return { tree_id: tree.id, visibility, code, link: code && visibility !== 'private' ? `/t/${encodeURIComponent(code)}` : null };
    },
  };
}

export type TreesService = ReturnType<typeof createTreesService>;
