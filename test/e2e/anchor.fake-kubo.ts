/** A Kubo RPC stand-in for tests: hashes what it is given exactly as `ipfs add --cid-version=1` would. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cidForBytes } from '../../shared/src/evidence/cid.js';
import { identify } from '../../shared/src/evidence/record.js';

export interface FakeKubo {
  url: string;
  pinned: string[];
  close(): Promise<void>;
}

/** Pulls the single file part out of a multipart body. */
async function filePart(req: import('node:http').IncomingMessage, raw: Buffer): Promise<Uint8Array> {
  const form = await new Response(raw, { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
  return new Uint8Array(await (form.get('file') as Blob).arrayBuffer());
}

export async function startFakeKubo(): Promise<FakeKubo> {
  const pinned: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    const respond = async () => {
      const bytes = await filePart(req, Buffer.concat(chunks));
      const url = new URL(req.url ?? '', 'http://x');
      let body: unknown;
      if (url.pathname === '/api/v0/add' && url.searchParams.get('cid-version') === '1') {
        const cid = await cidForBytes(bytes);
        body = { Name: 'data', Hash: cid, Size: String(bytes.length) };
        pinned.push(cid);
      } else if (url.pathname === '/api/v0/dag/put' && url.searchParams.get('store-codec') === 'dag-cbor') {
        const { cid } = identify(bytes);
        body = { Cid: { '/': cid } };
        pinned.push(cid);
      } else {
        res.writeHead(400).end('unsupported');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    // A request the fake cannot read is answered 500, never left as an unhandled rejection.
    req.on('end', () => void respond().catch((err: unknown) => res.writeHead(500).end(String(err))));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pinned,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
