/**
 * A Blockfrost-compatible HTTP server for tests: it funds one address with `funds` UTxOs, accepts
 * `POST /tx/submit` (raw CBOR), decodes what it receives, and puts transactions into blocks when
 * told to. Like a node's mempool, it refuses a transaction spending an input that is unknown or
 * already spent by another submitted one (a double spend), and one whose TTL slot has passed;
 * mining never includes an expired transaction. The tip advances 20 slots per block.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeAnchorTx, type DecodedAnchorTx } from '../../shared/src/evidence/cardano.js';

export interface FakeBlockfrost {
  url: string;
  submitted: Array<DecodedAnchorTx & { content_type: string }>;
  /** Answer the next submits with this HTTP status (e.g. 400 to refuse). */
  refuseWith: number | null;
  /** Submissions refused, with the node's reason. */
  refused: string[];
  /** Puts every submitted, unexpired transaction into the block at the current tip + 1. */
  mine(): void;
  /** The current tip's slot. */
  slot(): number;
  /** Adds `n` empty blocks on top. */
  advance(n: number): void;
  close(): Promise<void>;
}

const PARAMS = {
  min_fee_a: 44,
  min_fee_b: 155381,
  coins_per_utxo_size: '4310',
  max_tx_size: 16384,
  max_val_size: '5000',
  key_deposit: '2000000',
  pool_deposit: '500000000',
};

interface Utxo {
  tx_hash: string;
  output_index: number;
  lovelace: bigint;
}

export async function startFakeBlockfrost(opts: { funds?: number } = {}): Promise<FakeBlockfrost> {
  let tip = 1000;
  const slot = () => tip * 20;
  const inBlock = new Map<string, number>();
  const key = (u: { tx_hash: string; output_index: number }) => `${u.tx_hash}#${u.output_index}`;
  const utxos = new Map<string, Utxo>();
  for (let i = 0; i < (opts.funds ?? 1); i++) {
    const u = { tx_hash: (i === 0 ? 'cd' : (0xd0 + i).toString(16)).repeat(32), output_index: 0, lovelace: 20_000_000n };
    utxos.set(key(u), u);
  }
  // Inputs held by the mempool: submitted, not yet in a block, not yet past their TTL.
  const held = () =>
    new Set(
      fake.submitted.filter((t) => !inBlock.has(t.tx_hash) && (t.ttl_slot === null || t.ttl_slot >= slot())).flatMap((t) => t.inputs),
    );
  const fake: Omit<FakeBlockfrost, 'url' | 'close'> = {
    submitted: [],
    refused: [],
    refuseWith: null,
    slot,
    mine: () => {
      tip += 1;
      for (const s of fake.submitted) {
        if (inBlock.has(s.tx_hash) || (s.ttl_slot !== null && s.ttl_slot < slot())) continue;
        inBlock.set(s.tx_hash, tip);
        // The spent inputs leave the address; the change (inputs - fee) comes back as output 0.
        let sum = 0n;
        for (const i of s.inputs) {
          sum += utxos.get(i)?.lovelace ?? 0n;
          utxos.delete(i);
        }
        utxos.set(`${s.tx_hash}#0`, { tx_hash: s.tx_hash, output_index: 0, lovelace: sum - BigInt(s.fee_lovelace) });
      }
    },
    advance: (n) => {
      tip += n;
    },
  };
  /** Why a node would refuse `tx`, or null. */
  const refusal = (tx: DecodedAnchorTx): string | null => {
    const mempool = held();
    const bad = tx.inputs.find((i) => !utxos.has(i) || mempool.has(i));
    if (bad) return `BadInputsUTxO: ${bad} is unknown or already spent`;
    if (tx.ttl_slot !== null && tx.ttl_slot < slot()) return `OutsideValidityIntervalUTxO: ttl ${tx.ttl_slot} < slot ${slot()}`;
    return null;
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const url = req.url ?? '';
      if (req.method === 'GET' && url === '/epochs/latest/parameters') return send(200, PARAMS);
      if (req.method === 'GET' && /^\/addresses\/addr_test1\w+\/utxos$/.test(url)) {
        return send(
          200,
          [...utxos.values()].map((u) => ({
            tx_hash: u.tx_hash,
            output_index: u.output_index,
            amount: [{ unit: 'lovelace', quantity: String(u.lovelace) }],
          })),
        );
      }
      if (req.method === 'POST' && url === '/tx/submit') {
        if (fake.refuseWith) return send(fake.refuseWith, { error: 'Bad Request', message: 'refused by test' });
        const decoded = decodeAnchorTx(Buffer.concat(chunks).toString('hex'));
        const why = refusal(decoded);
        if (why) {
          fake.refused.push(why);
          return send(400, { error: 'Bad Request', message: why });
        }
        fake.submitted.push({ ...decoded, content_type: String(req.headers['content-type']) });
        return send(200, decoded.tx_hash);
      }
      const tx = /^\/txs\/([0-9a-f]{64})$/.exec(url);
      if (req.method === 'GET' && tx) {
        const height = inBlock.get(tx[1]!);
        return height === undefined ? send(404, { error: 'Not Found' }) : send(200, { hash: tx[1], block_height: height });
      }
      if (req.method === 'GET' && url === '/blocks/latest') return send(200, { height: tip, slot: slot() });
      send(404, { error: 'Not Found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  }) as FakeBlockfrost;
}
