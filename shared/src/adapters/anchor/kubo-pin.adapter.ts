import type { Pinner } from '../../ports/anchor.port.js';

/** Raised when the node answers with an error or a CID other than ours. */
export class PinError extends Error {}

/**
 * Pins to a Kubo node over its RPC API (`/api/v0/add`, `/api/v0/dag/put`). `add` runs with
 * `cid-version=1`, which in Kubo also means raw leaves and the default 256 KiB chunker: the same
 * profile as evidence/cid.ts, so the node must print the very CID we stored the bytes under;
 * anything else is reported as an error rather than silently pinned under another name.
 */
export function createKuboPinner(apiUrl: string, http: typeof fetch = fetch): Pinner {
  const base = apiUrl.replace(/\/+$/, '');

  async function post(path: string, bytes: Uint8Array): Promise<unknown> {
    const form = new FormData();
    form.append('file', new Blob([bytes]), 'data');
    const res = await http(`${base}${path}`, { method: 'POST', body: form });
    const text = await res.text();
    if (!res.ok) throw new PinError(`kubo ${path.split('?')[0]}: HTTP ${res.status} ${text.slice(0, 200)}`);
    // `add` may stream one JSON object per line; the last one is the file's root.
    return JSON.parse(text.trim().split('\n').at(-1) ?? '{}');
  }

  const expect = (want: string, got: unknown) => {
    if (got !== want) throw new PinError(`kubo computed CID ${String(got)}, expected ${want}`);
    return want;
  };

  return {
    async pinFile(cid, bytes) {
      const out = (await post('/api/v0/add?cid-version=1&pin=true&quieter=true', bytes)) as { Hash?: string };
      return expect(cid, out.Hash);
    },
    async pinDagCbor(cid, bytes) {
      const out = (await post('/api/v0/dag/put?store-codec=dag-cbor&input-codec=dag-cbor&hash=sha2-256&pin=true', bytes)) as {
        Cid?: { '/': string };
      };
      return expect(cid, out.Cid?.['/']);
    },
  };
}
