/**
 * The `cardano` anchor backend, offline half: build and sign a transaction
 * that carries a chain root in its metadata, and decode such a transaction
 * back. Nothing here talks to the network; submission (and the status
 * pending -> submitted -> confirmed | failed) belongs to the HTTP submitter.
 *
 * Metadata, under label 1455:
 *   { "v": 1, "alg": "rfc6962-sha256", "root": <32 bytes>, "size": <int>,
 *     "entity": <text> | [<text>, ...] }
 * Cardano caps every metadata text and byte string at 64 bytes. The root is
 * 32 bytes; an entity reference longer than 64 UTF-8 bytes is written as a
 * list of pieces of at most 64 bytes (cut between characters) and joined
 * again by {@link decodeAnchorTx}.
 *
 * Signing key: a plain Ed25519 key, given as hex: 32 bytes is a normal key
 * (RFC 8032 seed, `PrivateKey.from_normal_bytes`), 64 bytes an extended key
 * (already-expanded scalar||nonce as used by BIP32-Ed25519 wallets,
 * `PrivateKey.from_extended_bytes`). Every UTxO given must be locked by that
 * key (an address whose payment credential is its key hash); all of them are
 * spent, and what is left after the fee goes to `change_address`.
 */
import * as CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { EvidenceFormatError, fromHex, isHash32Hex, requireCount, requireString, toHex } from './bytes.js';

/** Metadata label of anchor transactions. */
export const ANCHOR_METADATA_LABEL = 1455;
/** Cardano's per-string limit for metadata text and bytes. */
export const METADATA_MAX_BYTES = 64;
const ANCHOR_VERSION = 1;
const ANCHOR_ALG = 'rfc6962-sha256';

type Lovelace = string | number | bigint;

/** An unspent output owned by the signing key. */
export interface AnchorUtxo {
  readonly tx_hash: string;
  readonly index: number;
  readonly lovelace: Lovelace;
}

/** Protocol parameters needed to price and size the transaction. */
export interface AnchorFeeParams {
  /** Fee per byte (protocol parameter minFeeA / txFeePerByte). */
  readonly min_fee_a: Lovelace;
  /** Constant fee (minFeeB / txFeeFixed). */
  readonly min_fee_b: Lovelace;
  readonly coins_per_utxo_byte: Lovelace;
  readonly max_tx_size: number;
  readonly max_value_size?: number;
  readonly pool_deposit?: Lovelace;
  readonly key_deposit?: Lovelace;
}

/** What is anchored: the chain root of one entity at one size. */
export interface AnchorPayload {
  readonly root_hex: string;
  readonly size: number;
  /** Entity reference, e.g. `tree/<id>`. */
  readonly entity: string;
}

/** Input of {@link buildAnchorTx}. */
export interface BuildAnchorTxInput {
  readonly utxos: readonly AnchorUtxo[];
  readonly change_address: string;
  readonly params: AnchorFeeParams;
  /** Hex Ed25519 key: 32 bytes (normal) or 64 bytes (extended). */
  readonly signing_key_hex: string;
  readonly anchor: AnchorPayload;
  /** Optional slot after which the transaction is invalid. */
  readonly ttl_slot?: number;
}

/** A signed anchor transaction, ready for a submitter. */
export interface BuiltAnchorTx {
  readonly cbor_hex: string;
  readonly tx_hash: string;
  readonly fee_lovelace: string;
}

/** Builds and signs an anchor transaction. Throws {@link EvidenceFormatError} on bad input or too little ADA. */
export function buildAnchorTx(input: BuildAnchorTxInput): BuiltAnchorTx {
  const key = signingKey(input.signing_key_hex);
  const builder = CSL.TransactionBuilder.new(builderConfig(input.params));
  if (input.utxos.length === 0) throw new EvidenceFormatError('at least one UTxO is needed to pay the fee');
  const keyHash = key.to_public().hash();
  for (const [i, u] of input.utxos.entries()) {
    const txIn = CSL.TransactionInput.new(
      CSL.TransactionHash.from_bytes(fromHex(u.tx_hash, 32, `utxos[${i}].tx_hash`)),
      requireCount(u.index, `utxos[${i}].index`),
    );
    builder.add_key_input(keyHash, txIn, CSL.Value.new(bigNum(u.lovelace, `utxos[${i}].lovelace`)));
  }
  builder.add_metadatum(CSL.BigNum.from_str(String(ANCHOR_METADATA_LABEL)), anchorMetadatum(input.anchor));
  if (input.ttl_slot !== undefined) builder.set_ttl_bignum(bigNum(input.ttl_slot, 'ttl_slot'));
  const body = buildBody(builder, input.change_address);
  const aux = builder.get_auxiliary_data() as CSL.AuxiliaryData;
  const tx = CSL.FixedTransaction.new_with_auxiliary(body.to_bytes(), CSL.TransactionWitnessSet.new().to_bytes(), aux.to_bytes(), true);
  tx.sign_and_add_vkey_signature(key);
  return { cbor_hex: tx.to_hex(), tx_hash: tx.transaction_hash().to_hex(), fee_lovelace: body.fee().to_str() };
}

function buildBody(builder: CSL.TransactionBuilder, changeAddress: string): CSL.TransactionBody {
  let address: CSL.Address;
  try {
    address = CSL.Address.from_bech32(requireString(changeAddress, 'change_address'));
  } catch {
    throw new EvidenceFormatError('change_address is not a bech32 Cardano address');
  }
  try {
    builder.add_change_if_needed(address);
    return builder.build();
  } catch (err) {
    // CSL reports shortfalls as plain strings ("Insufficient input in transaction").
    throw new EvidenceFormatError(`cannot build anchor transaction: ${String((err as Error)?.message ?? err)}`);
  }
}

function builderConfig(p: AnchorFeeParams): CSL.TransactionBuilderConfig {
  return (
    CSL.TransactionBuilderConfigBuilder.new()
      .fee_algo(CSL.LinearFee.new(bigNum(p.min_fee_a, 'min_fee_a'), bigNum(p.min_fee_b, 'min_fee_b')))
      .coins_per_utxo_byte(bigNum(p.coins_per_utxo_byte, 'coins_per_utxo_byte'))
      // Deposits only matter for certificates, which an anchor never carries.
      .pool_deposit(bigNum(p.pool_deposit ?? 0, 'pool_deposit'))
      .key_deposit(bigNum(p.key_deposit ?? 0, 'key_deposit'))
      .max_value_size(p.max_value_size ?? 5000)
      .max_tx_size(requireCount(p.max_tx_size, 'max_tx_size'))
      .build()
  );
}

function signingKey(hex: string): CSL.PrivateKey {
  const bytes = fromHex(hex, undefined, 'signing_key_hex');
  if (bytes.length === 32) return CSL.PrivateKey.from_normal_bytes(bytes);
  if (bytes.length === 64) return CSL.PrivateKey.from_extended_bytes(bytes);
  throw new EvidenceFormatError('signing_key_hex must be 32 (normal) or 64 (extended) bytes');
}

function bigNum(value: Lovelace, what: string): CSL.BigNum {
  const text = String(value);
  if (!/^\d+$/.test(text)) throw new EvidenceFormatError(`${what} must be a non-negative integer`);
  return CSL.BigNum.from_str(text);
}

/** The label-1455 metadatum for an anchor payload. */
export function anchorMetadatum(anchor: AnchorPayload): CSL.TransactionMetadatum {
  if (!isHash32Hex(anchor.root_hex)) throw new EvidenceFormatError('root_hex must be 64 lowercase hex characters');
  const map = CSL.MetadataMap.new();
  map.insert_str('v', CSL.TransactionMetadatum.new_int(CSL.Int.new_i32(ANCHOR_VERSION)));
  map.insert_str('alg', CSL.TransactionMetadatum.new_text(ANCHOR_ALG));
  map.insert_str('root', CSL.TransactionMetadatum.new_bytes(fromHex(anchor.root_hex, 32)));
  map.insert_str('size', CSL.TransactionMetadatum.new_int(CSL.Int.new(bigNum(requireCount(anchor.size, 'size'), 'size'))));
  map.insert_str('entity', textMetadatum(requireString(anchor.entity, 'entity')));
  return CSL.TransactionMetadatum.new_map(map);
}

/** One text metadatum, or a list of <=64-byte pieces when the text is longer. */
function textMetadatum(text: string): CSL.TransactionMetadatum {
  const pieces = splitUtf8(text, METADATA_MAX_BYTES);
  if (pieces.length === 1) return CSL.TransactionMetadatum.new_text(pieces[0] as string);
  const list = CSL.MetadataList.new();
  for (const p of pieces) list.add(CSL.TransactionMetadatum.new_text(p));
  return CSL.TransactionMetadatum.new_list(list);
}

/** Splits text into pieces of at most `max` UTF-8 bytes without cutting a character. */
export function splitUtf8(text: string, max: number): string[] {
  const pieces: string[] = [];
  let current = '';
  let size = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (size + n > max) {
      pieces.push(current);
      current = '';
      size = 0;
    }
    current += ch;
    size += n;
  }
  pieces.push(current);
  return pieces;
}

/** A decoded anchor transaction and what could be checked offline. */
export interface DecodedAnchorTx {
  readonly label: typeof ANCHOR_METADATA_LABEL;
  readonly version: number;
  readonly alg: string;
  readonly root_hex: string;
  readonly size: number;
  readonly entity: string;
  readonly tx_hash: string;
  readonly fee_lovelace: string;
  /** The body commits to exactly this metadata (auxiliary data hash matches). */
  readonly metadata_bound: boolean;
  /** Public keys (hex) of the vkey witnesses and whether each signs tx_hash. */
  readonly witnesses: ReadonlyArray<{ readonly public_key_hex: string; readonly valid: boolean }>;
  /** At least one witness, and all witnesses valid. */
  readonly signatures_ok: boolean;
  /** Last slot in which the transaction may enter a block (its TTL), or null when it has none. */
  readonly ttl_slot: number | null;
  /** The UTxOs it spends, as `<tx_hash>#<index>`. */
  readonly inputs: readonly string[];
}

/**
 * Decodes a signed anchor transaction. Throws {@link EvidenceFormatError} when
 * the CBOR is not a transaction or carries no well-formed label-1455 anchor.
 * Whether it is on chain can only be checked online (by tx_hash).
 */
export function decodeAnchorTx(cborHex: string): DecodedAnchorTx {
  let tx: CSL.FixedTransaction;
  try {
    tx = CSL.FixedTransaction.from_hex(toHex(fromHex(cborHex, undefined, 'cbor_hex')));
  } catch (err) {
    if (err instanceof EvidenceFormatError) throw err;
    throw new EvidenceFormatError('cbor_hex is not a Cardano transaction');
  }
  const aux = tx.auxiliary_data();
  const datum = aux?.metadata()?.get(CSL.BigNum.from_str(String(ANCHOR_METADATA_LABEL)));
  if (!aux || !datum) throw new EvidenceFormatError(`transaction has no metadata under label ${ANCHOR_METADATA_LABEL}`);
  const txHash = tx.transaction_hash();
  const witnesses = witnessChecks(tx.witness_set(), txHash.to_bytes());
  const bodyAuxHash = tx.body().auxiliary_data_hash()?.to_hex();
  return {
    label: ANCHOR_METADATA_LABEL,
    ...readAnchorMap(datum),
    tx_hash: txHash.to_hex(),
    fee_lovelace: tx.body().fee().to_str(),
    metadata_bound: bodyAuxHash !== undefined && bodyAuxHash === CSL.hash_auxiliary_data(aux).to_hex(),
    witnesses,
    signatures_ok: witnesses.length > 0 && witnesses.every((w) => w.valid),
    ttl_slot: ttlOf(tx.body()),
    inputs: inputsOf(tx.body()),
  };
}

function ttlOf(body: CSL.TransactionBody): number | null {
  const ttl = body.ttl_bignum();
  return ttl ? Number(ttl.to_str()) : null;
}

function inputsOf(body: CSL.TransactionBody): string[] {
  const list = body.inputs();
  const out: string[] = [];
  for (let i = 0; i < list.len(); i++) out.push(`${list.get(i).transaction_id().to_hex()}#${list.get(i).index()}`);
  return out;
}

function witnessChecks(set: CSL.TransactionWitnessSet, txHash: Uint8Array): DecodedAnchorTx['witnesses'] {
  const vkeys = set.vkeys();
  const out: Array<{ public_key_hex: string; valid: boolean }> = [];
  for (let i = 0; vkeys && i < vkeys.len(); i++) {
    const w = vkeys.get(i);
    const pk = w.vkey().public_key();
    out.push({ public_key_hex: toHex(pk.as_bytes()), valid: pk.verify(txHash, w.signature()) });
  }
  return out;
}

function readAnchorMap(datum: CSL.TransactionMetadatum): Pick<DecodedAnchorTx, 'version' | 'alg' | 'root_hex' | 'size' | 'entity'> {
  try {
    const map = datum.as_map();
    const root = map.get_str('root').as_bytes();
    if (root.length !== 32) throw new Error('root is not 32 bytes');
    const size = Number(map.get_str('size').as_int().to_str());
    return {
      version: Number(map.get_str('v').as_int().to_str()),
      alg: map.get_str('alg').as_text(),
      root_hex: toHex(root),
      size: requireCount(size, 'size'),
      entity: readText(map.get_str('entity')),
    };
  } catch (err) {
    throw new EvidenceFormatError(`label ${ANCHOR_METADATA_LABEL} metadata is not an anchor: ${String((err as Error)?.message ?? err)}`);
  }
}

function readText(datum: CSL.TransactionMetadatum): string {
  if (datum.kind() === CSL.TransactionMetadatumKind.Text) return datum.as_text();
  const list = datum.as_list();
  let text = '';
  for (let i = 0; i < list.len(); i++) text += list.get(i).as_text();
  return text;
}
