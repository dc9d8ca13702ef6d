import * as CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { buildAnchorTx, fromHex, type AnchorFeeParams, type AnchorUtxo } from '../../evidence/index.js';
import type { AnchorBackend, AnchorOutcome, AnchorProgress, AnchorRequest } from '../../ports/anchor.port.js';

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
  fetch?: typeof fetch;
}

/** Raised for an endpoint answer a retry may fix (5xx, network); 4xx refusals become `failed`. */
class EndpointError extends Error {
  constructor(readonly status: number, message: string) {
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

interface BlockfrostUtxo { tx_hash: string; output_index: number; amount: Array<{ unit: string; quantity: string }> }

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
    const headers: Record<string, string> = { ...(opts.apiKey ? { project_id: opts.apiKey } : {}), ...(body ? { 'Content-Type': 'application/cbor' } : {}) };
    const res = await http(base + p, { method, headers, body });
    const text = await res.text();
    if (res.status >= 500) throw new EndpointError(res.status, `${method} ${p}: HTTP ${res.status}`);
    let json: T | null = null;
    try { json = JSON.parse(text) as T; } catch { json = null; }
    return { status: res.status, json, text };
  }
  async function getJson<T>(p: string): Promise<T> {
    const r = await call<T>('GET', p);
    if (r.status !== 200 || r.json === null) throw new EndpointError(r.status, `GET ${p}: HTTP ${r.status}`);
    return r.json;
  }
  return { base, call, getJson };
}

/** Fetches UTxOs and parameters, builds and signs offline, submits the raw CBOR. */
async function submitAnchor(client: Client, opts: CardanoAnchorOptions, address: string, req: AnchorRequest): Promise<AnchorOutcome> {
  const utxoRes = await client.call<BlockfrostUtxo[]>('GET', `/addresses/${address}/utxos`);
  // Blockfrost answers 404 for an address that has never received anything: no funds.
  const utxos = utxoRes.status === 404 ? [] : toAnchorUtxos(utxoRes.json ?? []);
  if (utxos.length === 0) return { status: 'failed', error: `no spendable UTxO at ${address}` };
  const params = toFeeParams(await client.getJson<Record<string, unknown>>('/epochs/latest/parameters'));
  let built;
  try {
    built = buildAnchorTx({ utxos, change_address: address, params, signing_key_hex: opts.signingKeyHex, anchor: { root_hex: req.root_hex, size: req.size, entity: req.entity } });
  } catch (err) {
    return { status: 'failed', error: (err as Error).message };
  }
  const submitted = await client.call<string>('POST', '/tx/submit', fromHex(built.cbor_hex));
  const sent = { tx_hash: built.tx_hash, tx_cbor_hex: built.cbor_hex, explorer_url: opts.explorerUrl + built.tx_hash };
  if (submitted.status !== 200) return { ...sent, status: 'failed', error: `submit refused: HTTP ${submitted.status} ${submitted.text.slice(0, 200)}` };
  return { ...sent, status: 'submitted' };
}

/** Confirmations = tip height - the transaction's block height + 1; 0 while not in a block. */
async function readProgress(client: Client, opts: CardanoAnchorOptions, txHash: string): Promise<AnchorProgress> {
  const tx = await client.call<{ block_height?: number | null }>('GET', `/txs/${txHash}`);
  if (tx.status === 404 || typeof tx.json?.block_height !== 'number') return { status: 'submitted', confirmations: 0 };
  const tip = await client.getJson<{ height: number }>('/blocks/latest');
  const confirmations = Math.max(0, tip.height - tx.json.block_height + 1);
  return { status: confirmations >= opts.confirmations ? 'confirmed' : 'submitted', confirmations };
}

/** The `cardano` anchor backend: offline build and sign, submit over HTTP, poll confirmations. */
export function createCardanoAnchor(opts: CardanoAnchorOptions): AnchorBackend {
  const address = addressOfKey(opts.signingKeyHex, opts.network);
  const client = blockfrostClient(opts);
  const detail = { network: opts.network, address, endpoint: client.base, confirmations_required: opts.confirmations };
  return {
    kind: 'cardano',
    publicKey: null,
    anchor: (_tx, req) => submitAnchor(client, opts, address, req),
    progress: (txHash) => readProgress(client, opts, txHash),
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
