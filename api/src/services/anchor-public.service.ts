import { ERRORS } from '../../../shared/src/domain/errors.js';
import { fromHex } from '../../../shared/src/evidence/bytes.js';
import { chainRoot } from '../../../shared/src/evidence/chain.js';
import { keyFingerprint } from '../../../shared/src/evidence/did-key.js';
import { consistencyProof } from '../../../shared/src/evidence/merkle-consistency.js';
import type { AnchorBackend } from '../../../shared/src/ports/anchor.port.js';
import type { commitmentFor } from '../../../shared/src/repos/evidence/entity-secret.js';
import type { EntityType, loadChain } from '../../../shared/src/repos/evidence/chain-store.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { anchorPublicRepo, type AnchorPublicRepo, type DescribedAnchorRow } from '../../../shared/src/repos/anchor-public.repo.js';
import { isUuid } from '../../../shared/src/domain/ids.js';

/** What an anchor really is, in words a person can check, never just "confirmed". */
export interface AnchorDescription {
  backend: 'local' | 'cardano';
  status: string;
  size: number;
  root_hex: string;
  /** local: the did:key that signed the checkpoint, and its fingerprint. */
  public_key: string | null;
  key_fingerprint: string | null;
  checkpoint_seq: number | null;
  /** cardano: the transaction and how deep it is. */
  tx_hash: string | null;
  confirmations: number;
  explorer_url: string | null;
  /** One sentence in each language saying what the anchor is and what it proves. */
  text: { vi: string; en: string };
}

/** The sentence for one anchor: who vouches for the root, and how far that can be trusted. */
function anchorText(a: DescribedAnchorRow, fp: string | null): { vi: string; en: string } {
  if (a.status === 'failed')
    return { vi: 'Lần neo gần nhất đã thất bại; chuỗi này chưa được neo.', en: 'The last anchoring failed; this chain is not anchored.' };
  if (a.backend === 'local') {
    return {
      vi: `Được ký bởi khóa của chính máy chủ này (dấu vân tay ${fp ?? '?'}), không phải một blockchain công khai: chỉ đáng tin khi bạn tin khóa đó.`,
      en: `Signed by this server's own key (fingerprint ${fp ?? '?'}), not a public blockchain: trust it only as far as you trust that key.`,
    };
  }
  if (a.status === 'confirmed') {
    return {
      vi: `Giao dịch Cardano ${a.tx_hash} (${a.confirmations} xác nhận) mang gốc Merkle của chuỗi.`,
      en: `Cardano transaction ${a.tx_hash} (${a.confirmations} confirmations) carries the chain's Merkle root.`,
    };
  }
  return {
    vi: `Giao dịch Cardano ${a.tx_hash ?? ''} đã gửi nhưng chưa đủ xác nhận (${a.confirmations}); chưa thể coi là đã neo.`,
    en: `Cardano transaction ${a.tx_hash ?? ''} was sent but is not confirmed yet (${a.confirmations} confirmations); do not treat it as anchored.`,
  };
}

/** An anchor row in words: who vouches for the root, with the signing key's fingerprint. */
export function describeAnchor(a: DescribedAnchorRow): AnchorDescription {
  const key = a.checkpoint?.signer ?? null;
  const fp = key ? keyFingerprint(key) : null;
  return {
    backend: a.backend,
    status: a.status,
    size: a.size,
    root_hex: a.root_hex,
    public_key: key,
    key_fingerprint: fp,
    checkpoint_seq: a.checkpoint_seq,
    tx_hash: a.tx_hash,
    confirmations: a.confirmations,
    explorer_url: a.explorer_url,
    text: anchorText(a, fp),
  };
}

/** The best anchor of an entity (any non-failed one first, largest size), described; null when none. */
export async function describeLatestAnchor(db: Queryable, type: string, id: string): Promise<AnchorDescription | null> {
  const a = await anchorPublicRepo.latestAnchor(db, type, id);
  return a ? describeAnchor(a) : null;
}

/** Backend, key and fingerprint: what /.well-known/markless.json and the checkpoint pages publish. */
export function anchoringFacts(c: { anchor: Pick<AnchorBackend, 'kind' | 'publicKey'>; config: { CODE_PREFIX: string } }) {
  const publicKey = c.anchor.publicKey;
  return {
    backend: c.anchor.kind,
    public_key: publicKey,
    key_fingerprint: publicKey ? keyFingerprint(publicKey) : null,
    log_id: c.anchor.kind === 'local' ? `markless/${c.config.CODE_PREFIX}` : null,
    checkpoints: '/api/anchor/checkpoints',
  };
}

export type AnchoringFacts = ReturnType<typeof anchoringFacts>;

const PUBLIC_KINDS = new Set(['tree', 'fruit', 'animal']);

/** What the public anchoring pages use: the log and anchored roots, the chains, the salts and the service's facts. */
export interface AnchorPublicDeps {
  db: Queryable;
  anchors: Pick<AnchorPublicRepo, 'checkpointsAfter' | 'checkpointCount' | 'isPublished' | 'anchoredRoots'>;
  /** chain-store's loadChain and entity-secret's commitmentFor. */
  loadChain: typeof loadChain;
  commitmentFor: typeof commitmentFor;
  facts: AnchoringFacts;
}

/**
 * What anyone may fetch about anchoring without an account: the service key, the signed
 * checkpoint log (paged), and consistency proofs between two anchored roots of a published
 * entity. The log names no entity: each checkpoint carries a fresh commitment (entity-commitment.ts),
 * opened only for the owner (bundle) and, for a published entity, in its consistency proof.
 */
export function createAnchorPublicService({ db, anchors, loadChain, commitmentFor, facts }: AnchorPublicDeps) {
  return {
    /** Checkpoints with seq > `after`, oldest first, at most `limit`. */
    async checkpoints(after: number, limit: number) {
      const list = await anchors.checkpointsAfter(db, after, limit);
      const total = await anchors.checkpointCount(db);
      const last = list.at(-1);
      const { checkpoints: _link, ...key } = facts;
      return { ok: true as const, ...key, total, checkpoints: list, next_after: last && list.length === limit ? last.seq : null };
    },

    /**
     * RFC 9162 consistency proof between two anchored sizes of a published tree, fruit or animal.
     * Anything else (private, missing, an unanchored size) is the same 404.
     */
    async consistency(type: EntityType, idIn: string, first: number, second: number) {
      if (!PUBLIC_KINDS.has(type) || !isUuid(idIn) || first < 1 || first > second) throw ERRORS.notFound();
      const id = idIn.toLowerCase();
      if (!(await anchors.isPublished(db, id, type))) throw ERRORS.notFound();
      const anchored = await anchors.anchoredRoots(db, type, id, [first, second]);
      const chain = await loadChain(db, type, id);
      const rootAt = (n: number) => anchored.find((a) => a.size === n)?.root_hex;
      if (second > chain.length || !rootAt(first) || !rootAt(second)) throw ERRORS.notFound();
      const leaves = chain.slice(0, second).map((e) => fromHex(e.leaf_hash, 32));
      // A published entity: the salts that open the log's commitments of both roots may be shown.
      const salt = async (n: number) => (await commitmentFor(db, type, id, n, rootAt(n)!)).salt;
      return {
        ok: true as const,
        entity: `${type}/${id}`,
        entity_salts: { first: await salt(first), second: await salt(second) },
        first,
        second,
        first_root: chainRoot(chain.slice(0, first)),
        second_root: chainRoot(chain.slice(0, second)),
        proof: consistencyProof(leaves, first),
      };
    },
  };
}

export type AnchorPublicService = ReturnType<typeof createAnchorPublicService>;
