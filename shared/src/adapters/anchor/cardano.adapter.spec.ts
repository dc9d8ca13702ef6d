import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAnchorTx } from '../../evidence/cardano.js';
import type { Database } from '../../ports/database.port.js';
import { openMigratedPglite, type OpenDatabase } from '../../../../test/support/both-databases.js';
import { addressOfKey, createCardanoAnchor, selectInputs } from './cardano.adapter.js';

const ROOT = 'ab'.repeat(32);
const PARAMS = { min_fee_a: 44, min_fee_b: 155381, coins_per_utxo_size: '4310', max_tx_size: 16384, max_val_size: '5000' };
// A real database: the backend locks the wallet and reads in-flight inputs there.
let opened: OpenDatabase | undefined;
let db: Database;
beforeAll(async () => {
  opened = await openMigratedPglite();
  db = opened.db;
});
afterAll(async () => {
  await opened?.drop();
});
const inTx = <T>(run: (tx: Database) => Promise<T>) => db.transaction((tx) => run(tx as Database));

/** A fetch that answers from a table of `METHOD path` → [status, body]; records submitted bodies. */
function fakeFetch(table: Record<string, [number, unknown]>, sent: Uint8Array[] = []): typeof fetch {
  return (async (url: string, init?: RequestInit) => {
    const key = `${init?.method ?? 'GET'} ${new URL(url).pathname.replace(/^\/api\/v0/, '')}`;
    if (init?.body) sent.push(new Uint8Array(init.body as Uint8Array));
    const hit = Object.entries(table).find(([k]) => new RegExp(`^${k}$`).test(key));
    const [status, body] = hit?.[1] ?? [404, { error: 'Not Found' }];
    return new Response(JSON.stringify(body), { status });
  }) as typeof fetch;
}

const funded = (extra: Record<string, [number, unknown]> = {}) => ({
  'GET /addresses/addr_test1\\w+/utxos': [
    200,
    [
      { tx_hash: '11'.repeat(32), output_index: 0, amount: [{ unit: 'lovelace', quantity: '9000000' }] },
      // An output holding a token must never be spent by an ADA-only transaction.
      {
        tx_hash: '22'.repeat(32),
        output_index: 1,
        amount: [
          { unit: 'lovelace', quantity: '2000000' },
          { unit: 'ab'.repeat(28), quantity: '1' },
        ],
      },
    ],
  ] as [number, unknown],
  'GET /epochs/latest/parameters': [200, PARAMS] as [number, unknown],
  'GET /blocks/latest': [200, { height: 50, slot: 1000 }] as [number, unknown],
  ...extra,
});

function backend(fetchImpl: typeof fetch, key = randomBytes(32).toString('hex')) {
  return createCardanoAnchor({
    apiUrl: 'http://chain.test/api/v0',
    network: 'preview',
    signingKeyHex: key,
    confirmations: 2,
    explorerUrl: 'https://x.test/tx/',
    ttlSlots: 600,
    fetch: fetchImpl,
  });
}

describe('cardano anchor backend', () => {
  it('derives a testnet enterprise address for test networks and a mainnet one for mainnet', () => {
    const key = randomBytes(32).toString('hex');
    expect(addressOfKey(key, 'preprod')).toMatch(/^addr_test1v/);
    expect(addressOfKey(key, 'mainnet')).toMatch(/^addr1v/);
  });

  it('submits raw CBOR carrying label 1455 and the root, spending only pure-ADA outputs', async () => {
    const sent: Uint8Array[] = [];
    const b = backend(fakeFetch(funded({ 'POST /tx/submit': [200, 'ignored'] }), sent));
    const out = await inTx((tx) => b.anchor(tx, { entity: 'tree/t1', size: 5, root_hex: ROOT }));
    expect(out.status).toBe('submitted');
    const tx = decodeAnchorTx(Buffer.from(sent[0]!).toString('hex'));
    expect(tx).toMatchObject({
      label: 1455,
      root_hex: ROOT,
      size: 5,
      entity: 'tree/t1',
      signatures_ok: true,
      tx_hash: out.tx_hash,
      ttl_slot: 1600,
      inputs: [`${'11'.repeat(32)}#0`],
    });
    expect(out).toMatchObject({ ttl_slot: 1600, inputs: [`${'11'.repeat(32)}#0`] });
    expect(out.explorer_url).toBe(`https://x.test/tx/${out.tx_hash}`);
    expect(out.tx_cbor_hex).toBe(Buffer.from(sent[0]!).toString('hex'));
  });

  it('fails without funds or when the endpoint refuses, and throws (retry) on a 5xx', async () => {
    const poor = backend(fakeFetch({ 'GET /addresses/addr_test1\\w+/utxos': [404, { error: 'Not Found' }] }));
    expect(await inTx((tx) => poor.anchor(tx, { entity: 'tree/t1', size: 1, root_hex: ROOT }))).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('no spendable UTxO'),
    });
    const refused = backend(fakeFetch(funded({ 'POST /tx/submit': [400, { message: 'bad' }] })));
    expect(await inTx((tx) => refused.anchor(tx, { entity: 'tree/t1', size: 1, root_hex: ROOT }))).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('HTTP 400'),
    });
    const down = backend(fakeFetch(funded({ 'POST /tx/submit': [503, {}] })));
    await expect(inTx((tx) => down.anchor(tx, { entity: 'tree/t1', size: 1, root_hex: ROOT }))).rejects.toThrow(/503/);
  });

  it('never picks a UTxO an anchor in flight holds, and waits (throws to retry) when all are held', async () => {
    await db.query(
      `insert into anchors (id, entity_type, entity_id, size, root_hex, backend, status, owner_id, inputs)
       values ($1, 'tree', 't0', 1, $2, 'cardano', 'submitted', $3, $4::jsonb)`,
      [randomUUID(), ROOT, randomUUID(), JSON.stringify([`${'11'.repeat(32)}#0`])],
    );
    const b = backend(fakeFetch(funded({ 'POST /tx/submit': [200, 'ignored'] })));
    await expect(inTx((tx) => b.anchor(tx, { entity: 'tree/t1', size: 1, root_hex: ROOT }))).rejects.toThrow(/held by an anchor in flight/);
    await db.query(`update anchors set status = 'failed' where entity_id = 't0'`);
    expect(await inTx((tx) => b.anchor(tx, { entity: 'tree/t1', size: 1, root_hex: ROOT }))).toMatchObject({ status: 'submitted' });
  });

  it('selects the largest free UTxOs until they cover the fee and change', () => {
    const u = (h: string, lovelace: number) => ({ tx_hash: h.repeat(32), index: 0, lovelace });
    const all = [u('aa', 1_000_000), u('bb', 2_500_000), u('cc', 900_000), u('dd', 10_000_000)];
    expect(selectInputs(all, new Set()).map((x) => x.tx_hash)).toEqual(['dd'.repeat(32)]);
    expect(selectInputs(all, new Set([`${'dd'.repeat(32)}#0`])).map((x) => x.tx_hash)).toEqual(['bb'.repeat(32), 'aa'.repeat(32)]);
  });

  it("counts confirmations from the transaction's block to the tip", async () => {
    const hash = 'cd'.repeat(32);
    const pending = backend(fakeFetch({}));
    expect(await pending.progress(hash)).toEqual({ status: 'submitted', confirmations: 0 });
    const one = backend(fakeFetch({ [`GET /txs/${hash}`]: [200, { block_height: 100 }], 'GET /blocks/latest': [200, { height: 100 }] }));
    expect(await one.progress(hash)).toEqual({ status: 'submitted', confirmations: 1 });
    const two = backend(fakeFetch({ [`GET /txs/${hash}`]: [200, { block_height: 100 }], 'GET /blocks/latest': [200, { height: 101 }] }));
    expect(await two.progress(hash)).toEqual({ status: 'confirmed', confirmations: 2 });
    // Past its TTL and still in no block: it can never land, so it has failed.
    const stale = backend(fakeFetch({ 'GET /blocks/latest': [200, { height: 90, slot: 1601 }] }));
    expect(await stale.progress(hash, 1600)).toEqual({ status: 'failed', confirmations: 0 });
    expect(await stale.progress(hash, 1601)).toEqual({ status: 'submitted', confirmations: 0 });
  });

  it('reports an unreachable endpoint as unhealthy', async () => {
    const b = backend(fakeFetch({ 'GET /epochs/latest/parameters': [500, {}] }));
    expect(await b.health()).toMatchObject({ ok: false });
    expect(await backend(fakeFetch(funded())).health()).toMatchObject({ ok: true, detail: { network: 'preview' } });
  });
});
