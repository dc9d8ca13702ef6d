import * as CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { createPrivateKey, createPublicKey, randomBytes, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from './bytes.js';
import { ANCHOR_METADATA_LABEL, buildAnchorTx, decodeAnchorTx, splitUtf8, type BuildAnchorTxInput } from './cardano.js';

// Mainnet protocol parameters since the Alonzo era (minFeeA, minFeeB, coinsPerUTxOByte, maxTxSize).
const PARAMS = { min_fee_a: 44, min_fee_b: '155381', coins_per_utxo_byte: 4310, max_tx_size: 16384 };
const ROOT = '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328';

function wallet(seed = randomBytes(32)) {
  const key = CSL.PrivateKey.from_normal_bytes(seed);
  const address = CSL.EnterpriseAddress.new(0, CSL.Credential.from_keyhash(key.to_public().hash())).to_address();
  return { seedHex: toHex(seed), address: address.to_bech32() };
}

function input(over: Partial<BuildAnchorTxInput> = {}): BuildAnchorTxInput {
  const w = wallet();
  return {
    utxos: [{ tx_hash: 'ab'.repeat(32), index: 1, lovelace: '5000000' }],
    change_address: w.address,
    params: PARAMS,
    signing_key_hex: w.seedHex,
    anchor: { root_hex: ROOT, size: 8, entity: 'tree/tree-42' },
    ...over,
  };
}

describe('buildAnchorTx / decodeAnchorTx', () => {
  it('round-trips label 1455, the root, size and entity, with a valid signature', () => {
    const built = buildAnchorTx(input());
    const decoded = decodeAnchorTx(built.cbor_hex);
    expect(decoded).toMatchObject({
      label: 1455,
      version: 1,
      alg: 'rfc6962-sha256',
      root_hex: ROOT,
      size: 8,
      entity: 'tree/tree-42',
      tx_hash: built.tx_hash,
      fee_lovelace: built.fee_lovelace,
      metadata_bound: true,
      signatures_ok: true,
    });
    expect(decoded.witnesses).toHaveLength(1);
  });

  it('puts the label and the raw 32-byte root into the CBOR itself', () => {
    const { cbor_hex } = buildAnchorTx(input());
    expect(ANCHOR_METADATA_LABEL.toString(16)).toBe('5af');
    expect(cbor_hex).toContain('1905af'); // CBOR unsigned int 1455
    expect(cbor_hex).toContain(`5820${ROOT}`); // CBOR byte string of 32 bytes
  });

  it('pays at least the linear minimum fee and conserves value', () => {
    const built = buildAnchorTx(input());
    const tx = CSL.Transaction.from_hex(built.cbor_hex);
    const minFee = CSL.min_fee(tx, CSL.LinearFee.new(CSL.BigNum.from_str('44'), CSL.BigNum.from_str('155381')));
    expect(BigInt(built.fee_lovelace)).toBeGreaterThanOrEqual(BigInt(minFee.to_str()));
    expect(BigInt(built.fee_lovelace)).toBeLessThan(BigInt(minFee.to_str()) + 20_000n);
    const outputs = tx.body().outputs();
    let out = 0n;
    for (let i = 0; i < outputs.len(); i++) out += BigInt(outputs.get(i).amount().coin().to_str());
    expect(out + BigInt(built.fee_lovelace)).toBe(5_000_000n);
  });

  it('has a signature that node:crypto verifies over the transaction hash', () => {
    const w = wallet();
    const built = buildAnchorTx(input({ signing_key_hex: w.seedHex, change_address: w.address }));
    const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(w.seedHex, 'hex')]);
    const pub = createPublicKey(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }));
    const witness = CSL.Transaction.from_hex(built.cbor_hex).witness_set().vkeys()?.get(0);
    const signature = witness?.signature().to_bytes() as Uint8Array;
    expect(verify(null, fromHex(built.tx_hash), pub, signature)).toBe(true);
  });

  it('signs with an extended (64-byte) key too', () => {
    const key = CSL.Bip32PrivateKey.generate_ed25519_bip32().to_raw_key();
    const address = CSL.EnterpriseAddress.new(1, CSL.Credential.from_keyhash(key.to_public().hash())).to_address();
    expect(key.as_bytes()).toHaveLength(64);
    const built = buildAnchorTx(input({ signing_key_hex: toHex(key.as_bytes()), change_address: address.to_bech32() }));
    expect(decodeAnchorTx(built.cbor_hex).signatures_ok).toBe(true);
  });

  it('splits a long entity into <=64-byte pieces and joins them back', () => {
    const entity = `tree/${'cây-sầu-riêng-'.repeat(10)}`;
    expect(Buffer.byteLength(entity)).toBeGreaterThan(64);
    for (const p of splitUtf8(entity, 64)) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(64);
    const built = buildAnchorTx(input({ anchor: { root_hex: ROOT, size: 3, entity } }));
    expect(decodeAnchorTx(built.cbor_hex).entity).toBe(entity);
  });

  it('notices metadata changed after signing', () => {
    const built = buildAnchorTx(input());
    const forgedRoot = `${ROOT.slice(0, -2)}29`;
    const forged = built.cbor_hex.replace(`5820${ROOT}`, `5820${forgedRoot}`);
    const decoded = decodeAnchorTx(forged);
    expect(decoded.root_hex).toBe(forgedRoot);
    expect(decoded.metadata_bound).toBe(false);
  });

  it('refuses bad input and non-anchor transactions', () => {
    expect(() => buildAnchorTx(input({ utxos: [{ tx_hash: 'ab'.repeat(32), index: 0, lovelace: 100_000 }] }))).toThrow(/cannot build/);
    expect(() => buildAnchorTx(input({ utxos: [] }))).toThrow(/UTxO/);
    expect(() => buildAnchorTx(input({ anchor: { root_hex: 'ab', size: 1, entity: 'x' } }))).toThrow(/root_hex/);
    expect(() => buildAnchorTx(input({ signing_key_hex: 'ab'.repeat(16) }))).toThrow(/32 .* or 64/);
    expect(() => buildAnchorTx(input({ change_address: 'not-an-address' }))).toThrow(/bech32/);
    expect(() => decodeAnchorTx('00')).toThrow(/not a Cardano transaction/);
    const w = wallet();
    const b = CSL.TransactionBuilder.new(
      CSL.TransactionBuilderConfigBuilder.new()
        .fee_algo(CSL.LinearFee.new(CSL.BigNum.from_str('44'), CSL.BigNum.from_str('155381')))
        .coins_per_utxo_byte(CSL.BigNum.from_str('4310'))
        .pool_deposit(CSL.BigNum.zero())
        .key_deposit(CSL.BigNum.zero())
        .max_value_size(5000)
        .max_tx_size(16384)
        .build(),
    );
    const key = CSL.PrivateKey.from_normal_bytes(fromHex(w.seedHex));
    b.add_key_input(
      key.to_public().hash(),
      CSL.TransactionInput.new(CSL.TransactionHash.from_bytes(new Uint8Array(32)), 0),
      CSL.Value.new(CSL.BigNum.from_str('5000000')),
    );
    b.add_change_if_needed(CSL.Address.from_bech32(w.address));
    expect(() => decodeAnchorTx(b.build_tx().to_hex())).toThrow(/no metadata under label 1455/);
  });
});
