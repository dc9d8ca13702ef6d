import type { Container } from '../../../shared/src/container.js';
import { ERRORS } from '../../../shared/src/domain/errors.js';
import { pinTreeEvidence } from '../../../shared/src/repos/evidence/pin-evidence.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import type { Standing } from './grants.service.js';
import { individualAccess } from '../../../shared/src/access/standing.js';

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

const iso = (d: unknown) => (d instanceof Date ? d.toISOString() : String(d));

function toSummary(r: Record<string, unknown>, callerId: string): TreeSummary {
  return {
    tree_id: String(r.id),
    owner_id: String(r.owner_id),
    access: r.owner_id === callerId ? 'owner' : (r.access as 'read' | 'write'),
    farm_id: (r.farm_id as string) ?? null,
    species: (r.species as string) ?? null,
    name: (r.name as string) ?? null,
    lat: (r.lat as number) ?? null,
    lon: (r.lon as number) ?? null,
    code: (r.code as string) ?? null,
    visibility: r.visibility as Visibility,
    image_count: Number(r.image_count),
    created_at: iso(r.created_at),
  };
}

/** Listing, renaming and publishing trees; every read and write goes through `access()`. */
export function createTreesService(c: Container) {
  const { db } = c;

  /**
   * The tree (or, with `kind`, the fruit or animal) as the caller may use it. A missing tree and another account's tree (without a
   * grant) are the same 404, so ids cannot be probed; a grant that is too weak is a 403.
   */
  async function access(callerId: string, treeId: string, need: 'read' | 'write' | 'owner', kind: Kind = 'tree'): Promise<TreeAccess> {
    // A malformed id names no tree: the access repository answers it as missing, without a query.
    const { decision, individual, standing } = await individualAccess(db, callerId, treeId, kind, need);
    if (decision === 'not_found') throw ERRORS.notFound();
    if (decision === 'forbidden') throw ERRORS.forbidden();
    return { id: individual!.id, owner_id: individual!.owner_id, standing: standing! };
  }

  async function list(callerId: string, opts: { farm_id?: string; include_shared?: boolean }): Promise<TreeSummary[]> {
    const r = await db.query<Record<string, unknown>>(
      `select i.id, i.owner_id, i.farm_id, i.species, i.name, i.lat, i.lon, i.visibility, i.created_at, g.access,
              (select tr.code from tree_records tr where tr.individual_id = i.id) as code,
              (select count(*) from images im where im.individual_id = i.id)::int as image_count
         from individuals i
         left join grants g on g.owner_id = i.owner_id and g.grantee_id = $1 and g.kind = 'tree' and g.revoked_at is null
        where i.kind = 'tree' and i.deleted_at is null
          and (i.owner_id = $1 or ($3::boolean and g.access is not null))
          and ($2::text is null or i.farm_id = $2)
        order by i.created_at, i.id`,
      [callerId, opts.farm_id ?? null, opts.include_shared ?? false],
    );
    return r.rows.map((row) => toSummary(row, callerId));
  }

  return {
    access,
    list,

    /** Rename after sanitising; `null` when nothing is left (the route answers 200 with ok:false). */
    async rename(callerId: string, treeId: string, raw: string, kind: Kind = 'tree'): Promise<{ tree_id: string; name: string } | null> {
      const tree = await access(callerId, treeId, 'write', kind);
      const name = sanitizeName(raw);
      if (!name) return null;
      await db.query('update individuals set name = $2 where id = $1', [tree.id, name]);
      return { tree_id: tree.id, name };
    },

    /** Owner only: choose what `/api/resolve/{code}` and `/t/{code}` reveal about this tree (or, with `kind`, whether a fruit is public). */
    async setVisibility(callerId: string, treeId: string, visibility: Visibility, kind: Kind = 'tree') {
      const tree = await access(callerId, treeId, 'owner', kind);
      await db.query('update individuals set visibility = $2, visibility_changed_at = now() where id = $1', [tree.id, visibility]);
      const rec = await db.query<{ code: string }>('select code from tree_records where individual_id = $1', [tree.id]);
      const code = rec.rows[0]?.code ?? null;
      // Only a published record goes to the public IPFS network; best effort, like every pin.
      if (visibility === 'public' && c.pinner) {
        await pinTreeEvidence({ db, blobs: c.blobs, pinner: c.pinner }, tree.id).catch((err: unknown) =>
          c.logger.warn({ err, tree: tree.id }, 'pinning to Kubo failed'),
        );
      }
      return { tree_id: tree.id, visibility, code, link: code && visibility !== 'private' ? `/t/${encodeURIComponent(code)}` : null };
    },
  };
}

export type TreesService = ReturnType<typeof createTreesService>;
