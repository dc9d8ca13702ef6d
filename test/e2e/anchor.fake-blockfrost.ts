/**
 * A Blockfrost-compatible HTTP server for tests: it funds one address, accepts `POST /tx/submit`
 * (raw CBOR), decodes what it receives, and puts transactions into blocks when told to.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeAnchorTx, type DecodedAnchorTx } from '../../shared/src/evidence/cardano.js';

export interface FakeBlockfrost {
  url: string;
  submitted: Array<DecodedAnchorTx & { content_type: string }>;
  /** Answer the next submits with this HTTP status (e.g. 400 to refuse). */
  refuseWith: number | null;
  /** Puts every submitted transaction into the block at the current tip + 1. */
  mine(): void;
  /** Adds `n` empty blocks on top. */
  advance(n: number): void;
  close(): Promise<void>;
}

const PARAMS = { min_fee_a: 44, min_fee_b: 155381, coins_per_utxo_size: '4310', max_tx_size: 16384, max_val_size: '5000', key_deposit: '2000000', pool_deposit: '500000000' };

export async function startFakeBlockfrost(): Promise<FakeBlockfrost> {
  let tip = 1000;
  const inBlock = new Map<string, number>();
  const fake: Omit<FakeBlockfrost, 'url' | 'close'> = {
    submitted: [], refuseWith: null,
    mine: () => { tip += 1; for (const s of fake.submitted) if (!inBlock.has(s.tx_hash)) inBlock.set(s.tx_hash, tip); },
    advance: (n) => { tip += n; },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };
      const url = req.url ?? '';
      if (req.method === 'GET' && url === '/epochs/latest/parameters') return send(200, PARAMS);
      if (req.method === 'GET' && /^\/addresses\/addr_test1\w+\/utxos$/.test(url)) {
        return send(200, [{ tx_hash: 'cd'.repeat(32), output_index: 0, amount: [{ unit: 'lovelace', quantity: '20000000' }] }]);
      }
      if (req.method === 'POST' && url === '/tx/submit') {
        if (fake.refuseWith) return send(fake.refuseWith, { error: 'Bad Request', message: 'refused by test' });
        const decoded = decodeAnchorTx(Buffer.concat(chunks).toString('hex'));
        fake.submitted.push({ ...decoded, content_type: String(req.headers['content-type']) });
        return send(200, decoded.tx_hash);
      }
      const tx = /^\/txs\/([0-9a-f]{64})$/.exec(url);
      if (req.method === 'GET' && tx) {
        const height = inBlock.get(tx[1]!);
        return height === undefined ? send(404, { error: 'Not Found' }) : send(200, { hash: tx[1], block_height: height });
      }
      if (req.method === 'GET' && url === '/blocks/latest') return send(200, { height: tip });
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
