/**
 * Per-entity hash chain of timeline events (spec section 2 "Timeline event
 * and proof", section 6).
 *
 * Canonical bytes of an event are the DAG-CBOR encoding of exactly
 *   { entity_type, entity_id, seq, body, author_role?, created_at, prev_hash }
 * - seq is 0-based and equals the event's leaf index in the Merkle tree;
 * - prev_hash is the previous event's leaf_hash as 64 lowercase hex
 *   characters, and 64 zeros for the first event (genesis);
 * - author_role is left out of the map when absent (DAG-CBOR has no undefined);
 * - created_at is normalised like every timestamp (canonicalTimestamp);
 * - body is the free-form JSON object of the request, hashed as JSON data:
 *   values that JSON cannot carry are refused, because the verifier re-reads
 *   events from JSON and must get the same bytes back.
 * The text fields are hashed as given (no Unicode normalisation), since
 * they are stored and exported as-is.
 *
 * leaf_hash = RFC 6962 leaf hash of those bytes, SHA-256(0x00 || bytes),
 * so the chain's leaves are directly the leaves of its Merkle tree.
 * The chain root is the RFC 6962 root over the leaf hashes in seq order.
 * Other fields an event row may carry (event_id, visibility, approval) are
 * not hashed: a pending event can be approved without breaking the chain.
 * Events inherited from an enclosing scope (`inherited_from`) are not part
 * of an entity's own chain and must not be passed here.
 */
import * as dagCbor from '@ipld/dag-cbor';
import { EvidenceFormatError, canonicalTimestamp, fromHex, isHash32Hex, requireCount, requireString, toHex } from './bytes.js';
import { hashLeaf, inclusionProof, merkleRoot, type AuditStep } from './merkle.js';

/** prev_hash of the first event of every chain. */
export const GENESIS_PREV_HASH = '0'.repeat(64);

/** What a caller supplies to append an event. */
export interface EventContent {
  readonly entity_type: string;
  readonly entity_id: string;
  readonly body: Readonly<Record<string, unknown>>;
  readonly author_role?: string;
  readonly created_at: string | Date;
}

/** An event as stored in the chain. */
export interface ChainEvent {
  readonly entity_type: string;
  readonly entity_id: string;
  readonly seq: number;
  readonly body: Readonly<Record<string, unknown>>;
  readonly author_role?: string;
  readonly created_at: string;
  readonly prev_hash: string;
  readonly leaf_hash: string;
}

/** The hashed part of an event (everything but its own leaf_hash). */
export type UnhashedEvent = Omit<ChainEvent, 'leaf_hash'> & { readonly created_at: string | Date };

/** Canonical DAG-CBOR bytes of an event; throws {@link EvidenceFormatError} on bad input. */
export function canonicalEventBytes(event: UnhashedEvent): Uint8Array {
  const map: Record<string, unknown> = {
    entity_type: requireString(event.entity_type, 'entity_type'),
    entity_id: requireString(event.entity_id, 'entity_id'),
    seq: requireCount(event.seq, 'seq'),
    body: jsonObject(event.body, 'body'),
    created_at: canonicalTimestamp(event.created_at),
    prev_hash: requireHash(event.prev_hash, 'prev_hash'),
  };
  if (event.author_role !== undefined) map.author_role = requireString(event.author_role, 'author_role');
  return dagCbor.encode(map);
}

/** Hex RFC 6962 leaf hash of an event's canonical bytes. */
export function eventLeafHash(event: UnhashedEvent): string {
  return toHex(hashLeaf(canonicalEventBytes(event)));
}

/**
 * Builds the next event of `chain` (which must be the entity's own events in
 * seq order, already verified or freshly built by this function).
 */
export function appendEvent(chain: readonly ChainEvent[], content: EventContent): ChainEvent {
  const last = chain.at(-1);
  if (last && (last.entity_type !== content.entity_type || last.entity_id !== content.entity_id)) {
    throw new EvidenceFormatError('event belongs to another entity than the chain');
  }
  const unhashed = {
    entity_type: content.entity_type,
    entity_id: content.entity_id,
    seq: chain.length,
    body: jsonObject(content.body, 'body'),
    ...(content.author_role === undefined ? {} : { author_role: content.author_role }),
    created_at: canonicalTimestamp(content.created_at),
    prev_hash: last ? last.leaf_hash : GENESIS_PREV_HASH,
  };
  return { ...unhashed, leaf_hash: eventLeafHash(unhashed) };
}

/** Result of {@link verifyChain}: broken_at is the seq (index) of the first bad event. */
export interface ChainVerdict {
  readonly ok: boolean;
  readonly broken_at?: number;
  readonly reason?: string;
}

/**
 * Re-derives every leaf hash and link of an entity's own chain, given in seq
 * order. An empty chain is valid.
 */
export function verifyChain(events: readonly ChainEvent[]): ChainVerdict {
  const first = events[0];
  for (const [i, event] of events.entries()) {
    const problem = eventProblem(event, i, events[i - 1], first);
    if (problem) return { ok: false, broken_at: i, reason: problem };
  }
  return { ok: true };
}

function eventProblem(e: ChainEvent, i: number, prev: ChainEvent | undefined, first: ChainEvent | undefined): string | null {
  if (e.seq !== i) return `event at position ${i} has seq ${String(e.seq)}`;
  if (first && (e.entity_type !== first.entity_type || e.entity_id !== first.entity_id)) {
    return `event ${i} belongs to another entity`;
  }
  const expectedPrev = prev ? prev.leaf_hash : GENESIS_PREV_HASH;
  if (e.prev_hash !== expectedPrev) return `event ${i} prev_hash does not match the previous leaf_hash`;
  let recomputed: string;
  try {
    recomputed = eventLeafHash(e);
  } catch (err) {
    return `event ${i} cannot be hashed: ${(err as Error).message}`;
  }
  return recomputed === e.leaf_hash ? null : `event ${i} leaf_hash does not match its content`;
}

/** RFC 6962 root (hex) over the events' leaf hashes in seq order. */
export function chainRoot(events: readonly Pick<ChainEvent, 'leaf_hash'>[]): string {
  return toHex(merkleRoot(events.map((e, i) => fromHex(e.leaf_hash, 32, `event ${i} leaf_hash`))));
}

/** Inclusion proof of one event in the tree of the first `n` events. */
export interface EventProof {
  readonly index: number;
  readonly n: number;
  readonly leaf_hash: string;
  readonly path: AuditStep[];
  readonly root_hex: string;
}

/** Proof that event `seq` is in the chain root of its first `n` events (default: all). */
export function eventInclusionProof(events: readonly ChainEvent[], seq: number, n = events.length): EventProof {
  if (!Number.isSafeInteger(n) || n < 1 || n > events.length) throw new RangeError(`tree size ${n} is not available`);
  const leaves = events.slice(0, n).map((e, i) => fromHex(e.leaf_hash, 32, `event ${i} leaf_hash`));
  const event = events[seq];
  if (!event) throw new RangeError(`no event with seq ${seq}`);
  return {
    index: seq,
    n,
    leaf_hash: event.leaf_hash,
    path: inclusionProof(leaves, seq),
    root_hex: toHex(merkleRoot(leaves)),
  };
}

function requireHash(value: unknown, what: string): string {
  if (!isHash32Hex(value)) throw new EvidenceFormatError(`${what} must be 64 lowercase hex characters`);
  return value;
}

/** Checks `value` is a plain JSON object and returns a copy with -0 read as 0 (JSON cannot tell them apart). */
function jsonObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new EvidenceFormatError(`${what} must be a JSON object`);
  }
  return jsonValue(value, what) as Record<string, unknown>;
}

function jsonValue(value: unknown, path: string): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new EvidenceFormatError(`${path} is not a finite number`);
    // Integers past 2^53 do not survive a JSON round trip exactly, so their hash would not either.
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
      throw new EvidenceFormatError(`${path} is an integer too large to hash reproducibly`);
    }
    return Object.is(value, -0) ? 0 : value;
  }
  if (Array.isArray(value)) return value.map((v, i) => jsonValue(v, `${path}[${i}]`));
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // Assigning "__proto__" would change the copy's prototype instead of adding a key.
      if (k === '__proto__') throw new EvidenceFormatError(`${path} uses the reserved key __proto__`);
      out[k] = jsonValue(v, `${path}.${k}`);
    }
    return out;
  }
  throw new EvidenceFormatError(`${path} holds a value JSON cannot carry`);
}
