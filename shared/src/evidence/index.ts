/**
 * Evidence library: content addresses, canonical records, hash chains,
 * RFC 6962 Merkle proofs and the two anchor formats. Pure functions over
 * bytes and JSON; no database, no network. The offline verifier lives in
 * ./verify-cli.
 */
export * from './bytes.js';
export * from './cid.js';
export * from './record.js';
export * from './merkle.js';
export * from './merkle-consistency.js';
export * from './chain.js';
export * from './did-key.js';
export * from './checkpoint.js';
export * from './cardano.js';
