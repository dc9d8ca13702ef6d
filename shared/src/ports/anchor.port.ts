import type { SignedCheckpoint } from '../evidence/checkpoint.js';
import type { Queryable } from './database.port.js';

/**
 * Anchoring a chain root somewhere the service cannot rewrite. Two adapters: `local` (an
 * append-only checkpoint log signed with the service's Ed25519 key, the embedded default) and
 * `cardano` (a transaction with metadata label 1455, built and signed offline, submitted through
 * a Blockfrost-compatible HTTP endpoint).
 *
 * Status of one anchoring: `pending` (recorded, not yet handed to the backend) → `submitted`
 * (the backend accepted it; Cardano: in the mempool or in too few blocks) → `confirmed` (local:
 * the signed checkpoint is in the log; Cardano: N confirmations), or → `failed` (refused by the
 * endpoint, no funds, or not in a block before its TTL slot passed, so it can never land). Left out on purpose: batching many
 * roots into one transaction, and fee payment by anyone but the service's own key.
 */
export type AnchorStatus = 'pending' | 'submitted' | 'confirmed' | 'failed';

/** What is anchored: one entity's chain root at one size. */
export interface AnchorRequest {
  /** `<entity_type>/<entity_id>` */
  readonly entity: string;
  readonly size: number;
  readonly root_hex: string;
}

/** What the backend did with a request. */
export interface AnchorOutcome {
  readonly status: AnchorStatus;
  readonly tx_hash?: string;
  readonly tx_cbor_hex?: string;
  readonly explorer_url?: string;
  readonly checkpoint?: SignedCheckpoint;
  readonly error?: string;
  /** Cardano: the last slot the transaction may enter a block in. */
  readonly ttl_slot?: number;
  /** Cardano: the UTxOs the transaction spends, `<tx_hash>#<index>`. */
  readonly inputs?: readonly string[];
}

/** Latest on-chain state of a submitted anchor. */
export interface AnchorProgress {
  readonly status: AnchorStatus;
  readonly confirmations: number;
}

/** Health of the anchoring path, for GET /api/anchor/status. */
export interface AnchorHealth {
  readonly ok: boolean;
  readonly detail: Record<string, unknown>;
}

/** One anchoring backend. */
export interface AnchorBackend {
  readonly kind: 'local' | 'cardano';
  /** did:key of the checkpoint signer (local), or null. */
  readonly publicKey: string | null;
  /**
   * Anchors one root. `tx` is the caller's open transaction: the local backend appends its
   * checkpoint there, so the checkpoint and the anchor row commit or vanish together. Throws to
   * make the job retry (network trouble); returns `failed` for a refusal a retry cannot fix.
   */
  anchor(tx: Queryable, req: AnchorRequest): Promise<AnchorOutcome>;
  /**
   * Re-reads a submitted anchor's confirmations (Cardano); the local backend never needs it.
   * With the transaction's `ttlSlot`, answers `failed` once the chain is past it without the
   * transaction in a block: from then on it can never land.
   */
  progress(txHash: string, ttlSlot?: number | null): Promise<AnchorProgress>;
  health(): Promise<AnchorHealth>;
}

/**
 * Optional pinning of evidence to an IPFS node (Kubo RPC API, KUBO_API_URL), so the photos and
 * records are reachable in the content-addressed network under the very CIDs the records name.
 * Pinning is best effort: the blob store stays the service's own copy, and a node that is down
 * never fails an enrolment.
 */
export interface Pinner {
  /** Adds and pins one file; resolves to the CID the node computed (it must equal `cid`). */
  pinFile(cid: string, bytes: Uint8Array): Promise<string>;
  /** Puts and pins one DAG-CBOR block (a canonical record); resolves to the node's CID. */
  pinDagCbor(cid: string, bytes: Uint8Array): Promise<string>;
}
