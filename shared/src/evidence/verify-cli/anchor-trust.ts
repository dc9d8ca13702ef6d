/**
 * Whether an anchor deserves trust, beyond its own integrity (which `anchor.signature` checks).
 *
 * - A `local` checkpoint is the server vouching for itself: it proves nothing to a third party
 *   unless the key that signed it is one the reader already trusts. Without `--trust-key` the
 *   verifier says whose key it is (with its fingerprint) and fails this check.
 * - A `cardano` transaction can be checked offline for its signatures, its metadata and its root,
 *   but not for whether it was ever submitted: a never-submitted transaction looks exactly the
 *   same. Only `--online <Blockfrost-compatible URL>` can show it is on chain, with how many
 *   confirmations; offline, this check fails and says so.
 */
import { decodeAnchorTx } from '../cardano.js';
import { keyFingerprint } from '../did-key.js';
import type { AnchorFile } from './export-format.js';

/** How to look a Cardano transaction up (Blockfrost API shape: /txs/{hash}, /blocks/latest). */
export interface OnlineOptions {
  readonly url: string;
  /** Sent as Blockfrost's `project_id` header when given. */
  readonly apiKey?: string;
  /** Blocks on top of the transaction's own block (included) needed to count as confirmed. */
  readonly confirmations: number;
  readonly fetch?: typeof fetch;
}

/** Options that decide trust. */
export interface TrustOptions {
  readonly trustKey?: string;
  readonly online?: OnlineOptions;
}

/** Verdict of the `anchor.trust` check. */
export interface TrustVerdict {
  readonly ok: boolean;
  readonly detail: string;
}

/** The `anchor.trust` verdict for an anchor whose own integrity was already checked. */
export async function anchorTrust(anchor: AnchorFile, opts: TrustOptions): Promise<TrustVerdict> {
  if (anchor.backend === 'local') return localTrust(anchor.checkpoint.signer, opts.trustKey);
  const tx = decodeAnchorTx(anchor.tx_cbor_hex);
  const offline = `checked offline: transaction ${tx.tx_hash} is well-formed, signed, and carries this root${tx.ttl_slot === null ? '' : ` (valid until slot ${tx.ttl_slot})`}`;
  if (!opts.online) {
    return {
      ok: false,
      detail: `${offline}; NOT checked: that it was ever submitted or is on chain. Run again with --online <Blockfrost-compatible URL>`,
    };
  }
  return onlineTrust(tx.tx_hash, opts.online);
}

function localTrust(signer: string, trustKey: string | undefined): TrustVerdict {
  let fp: string;
  try {
    fp = keyFingerprint(signer);
  } catch {
    return { ok: false, detail: `the checkpoint names no valid signer key (${signer})` };
  }
  if (trustKey !== undefined && trustKey === signer) {
    return {
      ok: true,
      detail: `signed by the key you pinned, ${signer} (${fp}): a local checkpoint is this server vouching for itself, trusted because you trust that key`,
    };
  }
  if (trustKey !== undefined) return { ok: false, detail: `signed by ${signer} (${fp}), not by the key you pinned` };
  return {
    ok: false,
    detail:
      `signed by ${signer} (${fp}), a key the bundle names itself: trusted only if you trust key ${fp}. ` +
      'Compare it with the key the service publishes at /.well-known/markless.json and pass it with --trust-key',
  };
}

async function onlineTrust(txHash: string, o: OnlineOptions): Promise<TrustVerdict> {
  const http = o.fetch ?? fetch;
  const base = o.url.replace(/\/+$/, '');
  const headers: Record<string, string> = o.apiKey ? { project_id: o.apiKey } : {};
  try {
    const txRes = await http(`${base}/txs/${txHash}`, { headers });
    if (txRes.status === 404)
      return {
        ok: false,
        detail: `transaction ${txHash} is not on chain according to ${base}: it was never submitted, or has not landed yet`,
      };
    if (!txRes.ok) return { ok: false, detail: `${base} answered HTTP ${txRes.status} for the transaction; on-chain state unknown` };
    const tx = (await txRes.json()) as { block_height?: number | null };
    if (typeof tx.block_height !== 'number') return { ok: false, detail: `transaction ${txHash} is known to ${base} but in no block yet` };
    const tipRes = await http(`${base}/blocks/latest`, { headers });
    if (!tipRes.ok) return { ok: false, detail: `${base} answered HTTP ${tipRes.status} for the chain tip; confirmations unknown` };
    const tip = (await tipRes.json()) as { height: number };
    const n = Math.max(0, tip.height - tx.block_height + 1);
    return n >= o.confirmations
      ? {
          ok: true,
          detail: `Cardano transaction ${txHash} is on chain in block ${tx.block_height} with ${n} confirmations (${o.confirmations} required), per ${base}`,
        }
      : { ok: false, detail: `Cardano transaction ${txHash} has only ${n} confirmations; ${o.confirmations} required` };
  } catch (err) {
    return { ok: false, detail: `could not reach ${base}: ${(err as Error).message}; on-chain state unknown` };
  }
}
