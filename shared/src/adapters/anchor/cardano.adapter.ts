import * as CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { buildAnchorTx, fromHex, type AnchorFeeParams, type AnchorUtxo } from '../../evidence/index.js';
import type { AnchorBackend, AnchorOutcome, AnchorProgress, AnchorRequest } from '../../ports/anchor.port.js';
import type { Queryable } from '../../ports/database.port.js';
import { anchorBackendRepo } from '../../repos/evidence/anchor-backend.repo.js';

/** Options of {@link createCardanoAnchor}. */
export interface CardanoAnchorOptions {
  /** Base URL of a Blockfrost-compatible API, e.g. https://cardano-preprod.blockfrost.io/api/v0 */
  apiUrl: string;
  /** Sent as the `project_id` header (Blockfrost's key); optional for self-hosted endpoints. */
  apiKey?: string;
  network: 'mainnet' | 'preprod' | 'preview';
  /** Hex Ed25519 key paying the fee: 32 bytes (normal) or 64 (extended). */
  signingKeyHex: string;
  /** Blocks on top of the transaction's block (its own included) before it counts as confirmed. */
  confirmations: number;
  /** Prefix to which the transaction hash is appended. */
  explorerUrl: string;
  /**
   * Validity window in slots (1 slot = 1 s on mainnet, preprod and preview): every transaction
   * gets TTL = tip slot + this, so one not in a block by then can never land.
   */
  ttlSlots: number;
  fetch?: typeof fetch;
}

/** Raised for an endpoint answer a retry may fix (5xx, network); 4xx refusals become `failed`. */
class EndpointError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The enterprise address (payment key only) of the signing key, where change goes back. */
export function addressOfKey(signingKeyHex: string, network: CardanoAnchorOptions['network']): string {
  const bytes = fromHex(signingKeyHex, undefined, 'CARDANO_SIGNING_KEY');
  const key = bytes.length === 64 ? CSL.PrivateKey.from_extended_bytes(bytes) : CSL.PrivateKey.from_normal_bytes(bytes);
  const networkId = network === 'mainnet' ? 1 : 0;
  return CSL.EnterpriseAddress.new(networkId, CSL.Credential.from_keyhash(key.to_public().hash())).to_address().to_bech32();
}

interface BlockfrostUtxo {
  tx_hash: string;
  output_index: number;
  amount: Array<{ unit: string; quantity: string }>;
}

/** Pure-ADA outputs only: spending one that holds tokens without re-creating them would be invalid. */
function toAnchorUtxos(utxos: BlockfrostUtxo[]): AnchorUtxo[] {
  return utxos
    .filter((u) => u.amount.every((a) => a.unit === 'lovelace'))
    .map((u) => ({ tx_hash: u.tx_hash, index: u.output_index, lovelace: u.amount[0]?.quantity ?? '0' }));
}

function toFeeParams(p: Record<string, unknown>): AnchorFeeParams {
  const num = (v: unknown, fallback?: number) => (v === undefined || v === null ? fallback : Number(v));
  return {
    min_fee_a: String(p.min_fee_a),
    min_fee_b: String(p.min_fee_b),
    coins_per_utxo_byte: String(p.coins_per_utxo_size ?? p.coins_per_utxo_byte ?? 4310),
    max_tx_size: num(p.max_tx_size, 16384)!,
    max_value_size: num(p.max_val_size, 5000)!,
  };
}

type Client = ReturnType<typeof blockfrostClient>;

/** Minimal Blockfrost HTTP client: 5xx and network errors throw (retry), other statuses are returned. */
function blockfrostClient(opts: CardanoAnchorOptions) {
  const http = opts.fetch ?? fetch;
  const base = opts.apiUrl.replace(/\/+$/, '');
  async function call<T>(method: string, p: string, body?: Uint8Array): Promise<{ status: number; json: T | null; text: string }> {
    const headers: Record<string, string> = {
      ...(opts.apiKey ? { project_id: opts.apiKey } : {}),
      ...(body ? { 'Content-Type': 'application/cbor' } : {}),
    };
    const res = await http(base + p, { method, headers, body });
    const text = await res.text();
    if (res.status >= 500) throw new EndpointError(res.status, `${method} ${p}: HTTP ${res.status}`);
    let json: T | null;
    try {
      json = JSON.parse(text) as T;
    } catch {
      json = null;
    }
    return { status: res.status, json, text };
  }
  async function getJson<T>(p: string): Promise<T> {
    const r = await call<T>('GET', p);
    if (r.status !== 200 || r.json === null) throw new EndpointError(r.status, `GET ${p}: HTTP ${r.status}`);
    return r.json;
  }
  return { base, call, getJson };
}

/** Enough lovelace in the chosen inputs to pay the fee and leave a valid change output. */
const MIN_SPEND = 3_000_000n;

/** Largest free UTxOs first, until they cover MIN_SPEND: small, disjoint input sets. */
export function selectInputs(utxos: readonly AnchorUtxo[], busy: ReadonlySet<string>): AnchorUtxo[] {
  const free = utxos.filter((u) => !busy.has(`${u.tx_hash}#${u.index}`)).sort((a, b) => (BigInt(b.lovelace) > BigInt(a.lovelace) ? 1 : -1));
  const chosen: AnchorUtxo[] = [];
  let sum = 0n;
  for (const u of free) {
    if (sum >= MIN_SPEND) break;
    chosen.push(u);
    sum += BigInt(u.lovelace);
  }
  return chosen;
}

/**
 * Fetches UTxOs, parameters and the tip; builds and signs offline; submits the raw CBOR. Runs
 * under a per-wallet lock inside the caller's transaction, which also records the inputs it
 * spends, so two anchors (in any process) never spend the same UTxO.
 */
async function submitAnchor(
  client: Client,
  opts: CardanoAnchorOptions,
  address: string,
  tx: Queryable,
  req: AnchorRequest,
): Promise<AnchorOutcome> {
  await anchorBackendRepo.lockWallet(tx, address);
  const utxoRes = await client.call<BlockfrostUtxo[]>('GET', `/addresses/${address}/utxos`);
  // Blockfrost answers 404 for an address that has never received anything: no funds.
  const utxos = utxoRes.status === 404 ? [] : toAnchorUtxos(utxoRes.json ?? []);
  if (utxos.length === 0) return { status: 'failed', error: `no spendable UTxO at ${address}` };
  // UTxOs held by anchors still in flight are not chosen again until their transaction lands.
  const inputs = selectInputs(utxos, await anchorBackendRepo.inFlightInputs(tx));
  // Not a refusal: the UTxOs come back once the anchors in flight land (or pass their TTL).
  if (inputs.length === 0) throw new Error(`every UTxO at ${address} is held by an anchor in flight; retrying later`);
  const params = toFeeParams(await client.getJson<Record<string, unknown>>('/epochs/latest/parameters'));
  const tip = await client.getJson<{ slot?: number }>('/blocks/latest');
  if (typeof tip.slot !== 'number') throw new EndpointError(502, 'GET /blocks/latest: no slot in the answer');
  const ttl = tip.slot + opts.ttlSlots;
  let built;
  try {
    built = buildAnchorTx({
      utxos: inputs,
      change_address: address,
      params,
      signing_key_hex: opts.signingKeyHex,
      anchor: { root_hex: req.root_hex, size: req.size, entity: req.entity },
      ttl_slot: ttl,
    });
  } catch (err) {
    return { status: 'failed', error: (err as Error).message };
  }
  const submitted = await client.call<string>('POST', '/tx/submit', fromHex(built.cbor_hex));
  const sent = { tx_hash: built.tx_hash, tx_cbor_hex: built.cbor_hex, explorer_url: opts.explorerUrl + built.tx_hash, ttl_slot: ttl };
  if (submitted.status !== 200)
    return { ...sent, status: 'failed', error: `submit refused: HTTP ${submitted.status} ${submitted.text.slice(0, 200)}` };
  return { ...sent, status: 'submitted', inputs: inputs.map((u) => `${u.tx_hash}#${u.index}`) };
}

/**
 * Confirmations = tip height - the transaction's block height + 1; 0 while not in a block, and
 * `failed` once the tip is past the transaction's TTL without it (it can never land then).
 */
async function readProgress(client: Client, opts: CardanoAnchorOptions, txHash: string, ttlSlot?: number | null): Promise<AnchorProgress> {
  const tx = await client.call<{ block_height?: number | null }>('GET', `/txs/${txHash}`);
  if (tx.status === 404 || typeof tx.json?.block_height !== 'number') {
    if (ttlSlot === undefined || ttlSlot === null) return { status: 'submitted', confirmations: 0 };
    const tip = await client.getJson<{ slot?: number }>('/blocks/latest');
    return { status: typeof tip.slot === 'number' && tip.slot > ttlSlot ? 'failed' : 'submitted', confirmations: 0 };
  }
  const tip = await client.getJson<{ height: number }>('/blocks/latest');
  const confirmations = Math.max(0, tip.height - tx.json.block_height + 1);
  return { status: confirmations >= opts.confirmations ? 'confirmed' : 'submitted', confirmations };
}

/** The `cardano` anchor backend: offline build and sign, submit over HTTP, poll confirmations. */
export function createCardanoAnchor(opts: CardanoAnchorOptions): AnchorBackend {
  const address = addressOfKey(opts.signingKeyHex, opts.network);
  const client = blockfrostClient(opts);
  const detail = {
    network: opts.network,
    address,
    endpoint: client.base,
    confirmations_required: opts.confirmations,
    ttl_slots: opts.ttlSlots,
  };
  return {
    kind: 'cardano',
    publicKey: null,
    anchor: (tx, req) => submitAnchor(client, opts, address, tx, req),
    progress: (txHash, ttlSlot) => readProgress(client, opts, txHash, ttlSlot),
    async health() {
      try {
        await client.getJson('/epochs/latest/parameters');
        return { ok: true, detail };
      } catch (err) {
        return { ok: false, detail: { ...detail, error: (err as Error).message } };
      }
    },
  };
}
