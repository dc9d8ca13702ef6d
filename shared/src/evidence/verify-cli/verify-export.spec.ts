import * as CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { toHex } from '../bytes.js';
import { buildAnchorTx } from '../cardano.js';
import { appendEvent, eventInclusionProof, type ChainEvent } from '../chain.js';
import { GENESIS_CHECKPOINT_HASH, generateCheckpointKey, signCheckpoint } from '../checkpoint.js';
import { cidForBytes } from '../cid.js';
import { encodeRecord } from '../record.js';
import { writeExport, type AnchorFile, type EvidenceBundle } from './export-format.js';
import { runCli } from './main.js';
import { verifyExport, type CheckResult } from './verify-export.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'markless-export-'));
  dirs.push(dir);
  return dir;
}

interface Fixture {
  readonly dir: string;
  readonly imageCids: string[];
  readonly trustedDid: string;
}

/** What a fixture may change: the tree, and events appended after the anchored ones. */
interface FixtureOptions {
  readonly entityId?: string;
  readonly code?: string;
  /** Extra events after the anchored four (not covered by the anchor). */
  readonly after?: ReadonlyArray<{ body: Record<string, unknown>; author_role?: string }>;
  /** Role of the seq-0 enrolment event's author. */
  readonly enrolRole?: string;
}

/** Generates a tree with two photos (one multi-chunk), a 4-event chain, a proof of event 2 and an anchor. */
async function makeExport(backend: 'local' | 'cardano', o: FixtureOptions = {}): Promise<Fixture> {
  const photos = [randomBytes(5_000), randomBytes(300_000)];
  const imageCids = await Promise.all(photos.map((p) => cidForBytes(p)));
  const code = o.code ?? 'MKL-w3gvk1t-AB12CD34';
  const entityId = o.entityId ?? 'tree-42';
  const record = encodeRecord({ code, species: 'Sầu riêng', geohash: 'w3gvk1t', images: imageCids, created_at: '2026-07-01T08:00:00Z' });
  const events: ChainEvent[] = [];
  const add = (body: Record<string, unknown>, minute: number, author_role = 'owner') =>
    events.push(
      appendEvent(events, {
        entity_type: 'tree',
        entity_id: entityId,
        body,
        author_role,
        created_at: new Date(Date.UTC(2026, 6, 1, 8, minute)),
      }),
    );
  add({ type: 'enroll', code, record_cid: record.cid, record_hash: record.hash }, 0, o.enrolRole ?? 'owner');
  add({ kind: 'care', note: 'tưới nước' }, 1);
  add({ kind: 'care', note: 'bón phân', dose_ml: 250 }, 2);
  add({ kind: 'harvest', kg: 41.5 }, 3);
  const proof = eventInclusionProof(events, 2);
  for (const [i, e] of (o.after ?? []).entries()) add(e.body, 10 + i, e.author_role);
  const key = generateCheckpointKey();
  const anchor =
    backend === 'local' ? localAnchor(proof.root_hex, proof.n, key, entityId) : cardanoAnchor(proof.root_hex, proof.n, entityId);
  const bundle: EvidenceBundle = {
    recordBytes: record.bytes,
    recordFile: { cid: record.cid, hash: record.hash, record: record.record },
    images: new Map(imageCids.map((c, i) => [c, photos[i] as Uint8Array])),
    events,
    proof,
    anchor,
  };
  const dir = await tempDir();
  await writeExport(dir, bundle);
  return { dir, imageCids, trustedDid: key.did };
}

function localAnchor(root_hex: string, size: number, key: ReturnType<typeof generateCheckpointKey>, entityId: string): AnchorFile {
  const checkpoint = signCheckpoint(
    {
      log_id: 'test-log',
      seq: 0,
      entity: `tree/${entityId}`,
      size,
      root_hex,
      prev_checkpoint_hash: GENESIS_CHECKPOINT_HASH,
      created_at: '2026-07-01T09:00:00Z',
    },
    key.privateKey,
  );
  return { backend: 'local', checkpoint, public_key: key.did };
}

function cardanoAnchor(root_hex: string, size: number, entityId: string): AnchorFile {
  const seed = randomBytes(32);
  const pk = CSL.PrivateKey.from_normal_bytes(seed).to_public();
  const address = CSL.EnterpriseAddress.new(0, CSL.Credential.from_keyhash(pk.hash())).to_address().to_bech32();
  const tx = buildAnchorTx({
    utxos: [{ tx_hash: 'cd'.repeat(32), index: 0, lovelace: 3_000_000 }],
    change_address: address,
    params: { min_fee_a: 44, min_fee_b: 155381, coins_per_utxo_byte: 4310, max_tx_size: 16384 },
    signing_key_hex: toHex(seed),
    anchor: { root_hex, size, entity: `tree/${entityId}` },
    ttl_slot: 90_000_000,
  });
  return { backend: 'cardano', tx_hash: tx.tx_hash, tx_cbor_hex: tx.cbor_hex };
}

const failed = (results: CheckResult[]) => results.filter((r) => !r.ok).map((r) => r.check);

async function flipByte(path: string, at: (bytes: Buffer) => number): Promise<void> {
  const bytes = await readFile(path);
  const i = at(bytes);
  bytes[i] = (bytes[i] as number) ^ 0x01;
  await writeFile(path, bytes);
}

async function editJson<T>(path: string, edit: (value: T) => void): Promise<void> {
  const value = JSON.parse(await readFile(path, 'utf8')) as T;
  edit(value);
  await writeFile(path, JSON.stringify(value));
}

/** A Blockfrost-shaped `fetch` that knows `onChain` transactions at height 100 under a tip of `tip`. */
function chainFetch(onChain: Record<string, number>, tip: number): typeof fetch {
  return (async (url: string | URL) => {
    const u = String(url);
    const tx = /\/txs\/([0-9a-f]{64})$/.exec(u);
    if (tx)
      return tx[1]! in onChain ? Response.json({ block_height: onChain[tx[1]!] }) : Response.json({ error: 'Not Found' }, { status: 404 });
    if (u.endsWith('/blocks/latest')) return Response.json({ height: tip });
    return Response.json({}, { status: 404 });
  }) as typeof fetch;
}

async function txHashOf(dir: string): Promise<string> {
  return (JSON.parse(await readFile(join(dir, 'anchor.json'), 'utf8')) as { tx_hash: string }).tx_hash;
}

const trusted = (fx: Fixture) => verifyExport(fx.dir, { trustKey: fx.trustedDid });

describe('verifyExport on an untouched export', () => {
  it.each(['local', 'cardano'] as const)('passes every check with a trusted %s anchor', async (backend) => {
    const fx = await makeExport(backend);
    const online =
      backend === 'cardano'
        ? { online: { url: 'http://chain.test', confirmations: 6, fetch: chainFetch({ [await txHashOf(fx.dir)]: 100 }, 110) } }
        : {};
    const results = await verifyExport(fx.dir, backend === 'local' ? { trustKey: fx.trustedDid, expect: 'MKL-w3gvk1t-AB12CD34' } : online);
    expect(failed(results)).toEqual([]);
    expect(results.map((r) => r.check)).toEqual([
      'record.cid',
      ...fx.imageCids.map((c) => `image ${c}`),
      'record.in-chain',
      'chain',
      'proof.inclusion',
      'proof.root',
      'anchor.signature',
      'anchor.root',
      'anchor.trust',
      'entity',
    ]);
    const entity = results.find((r) => r.check === 'entity')!.detail;
    expect(entity).toContain('tree tree-42 (code MKL-w3gvk1t-AB12CD34)');
    expect(entity).toMatch(backend === 'local' ? /local checkpoint 0 of log test-log/ : /Cardano transaction [0-9a-f]{64}/);
    if (backend === 'cardano')
      expect(results.find((r) => r.check === 'anchor.trust')!.detail).toMatch(/on chain in block 100 with 11 confirmations/);
  });
});

describe('forgeries are rejected with a clear line', () => {
  it('a record swapped in and named by an event appended after the anchored size', async () => {
    const fake = encodeRecord({
      code: 'MKL-w3gvk1t-AB12CD34',
      species: 'Sầu riêng',
      geohash: 'w3gvk1t',
      images: [await cidForBytes(randomBytes(100))],
      created_at: '2026-07-02T08:00:00Z',
    });
    const fx = await makeExport('local', { after: [{ body: { type: 'enroll', record_cid: fake.cid, record_hash: fake.hash } }] });
    await writeFile(join(fx.dir, 'record.cbor'), fake.bytes);
    await editJson<{ cid: string; hash: string }>(join(fx.dir, 'record.json'), (r) => {
      r.cid = fake.cid;
      r.hash = fake.hash;
    });
    const results = await trusted(fx);
    expect(failed(results)).toContain('record.in-chain');
    expect(results.find((r) => r.check === 'record.in-chain')!.detail).toMatch(
      /named only by event seq 4, after the anchored first 4 events/,
    );
  });

  it('a contributor enrolment event naming a fake record, inside the anchored prefix', async () => {
    const fake = encodeRecord({
      code: 'MKL-w3gvk1t-AB12CD34',
      species: 'Sầu riêng',
      geohash: 'w3gvk1t',
      images: [],
      created_at: '2026-07-02T08:00:00Z',
    });
    const fx = await makeExport('local', { enrolRole: 'contributor' });
    // Even the genuine record is refused when the seq-0 event is not the owner's.
    expect((await trusted(fx)).find((r) => r.check === 'record.in-chain')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/owner did not write/),
    });
    const fx2 = await makeExport('local');
    await editJson<ChainEvent[]>(join(fx2.dir, 'events.json'), (ev) => {
      ev[1] = { ...ev[1]!, body: { type: 'enroll', record_cid: fake.cid, record_hash: fake.hash }, author_role: 'contributor' };
    });
    await writeFile(join(fx2.dir, 'record.cbor'), fake.bytes);
    await editJson<{ cid: string; hash: string }>(join(fx2.dir, 'record.json'), (r) => {
      r.cid = fake.cid;
      r.hash = fake.hash;
    });
    expect(failed(await trusted(fx2))).toContain('record.in-chain');
  });

  it("another entity's valid bundle, checked against the expected code", async () => {
    const fx = await makeExport('local', { entityId: 'tree-77', code: 'MKL-w3gvk1t-ZZ99ZZ99' });
    const results = await verifyExport(fx.dir, { trustKey: fx.trustedDid, expect: 'MKL-w3gvk1t-AB12CD34' });
    expect(failed(results)).toEqual(['entity']);
    expect(results.find((r) => r.check === 'entity')!.detail).toMatch(
      /about tree tree-77 \(code MKL-w3gvk1t-ZZ99ZZ99\).*not the expected MKL-w3gvk1t-AB12CD34/,
    );
  });

  it('a bundle signed with its own (forger) key, when no key is pinned', async () => {
    const fx = await makeExport('local');
    const results = await verifyExport(fx.dir);
    expect(failed(results)).toEqual(['anchor.trust']);
    expect(results.find((r) => r.check === 'anchor.trust')!.detail).toMatch(
      /trusted only if you trust key SHA256:[0-9a-f]{4}( [0-9a-f]{4}){9}/,
    );
  });

  it('an unsubmitted Cardano transaction: offline it is not trusted, online it is not on chain', async () => {
    const fx = await makeExport('cardano');
    const offline = await verifyExport(fx.dir);
    expect(failed(offline)).toEqual(['anchor.trust']);
    expect(offline.find((r) => r.check === 'anchor.trust')!.detail).toMatch(
      /checked offline.*valid until slot 90000000.*NOT checked: that it was ever submitted/,
    );
    const online = await verifyExport(fx.dir, { online: { url: 'http://chain.test', confirmations: 6, fetch: chainFetch({}, 110) } });
    expect(online.find((r) => r.check === 'anchor.trust')!.detail).toMatch(/is not on chain/);
    const shallow = await verifyExport(fx.dir, {
      online: { url: 'http://chain.test', confirmations: 6, fetch: chainFetch({ [await txHashOf(fx.dir)]: 108 }, 110) },
    });
    expect(shallow.find((r) => r.check === 'anchor.trust')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/only 3 confirmations; 6 required/),
    });
  });
});

describe('verifyExport on a tampered export fails the right check', () => {
  it('one byte of an image', async () => {
    const fx = await makeExport('local');
    await flipByte(join(fx.dir, 'images', fx.imageCids[1] as string), (b) => b.length - 7);
    expect(failed(await trusted(fx))).toEqual([`image ${fx.imageCids[1]}`]);
  });

  it('a missing image', async () => {
    const fx = await makeExport('local');
    await unlink(join(fx.dir, 'images', fx.imageCids[0] as string));
    const results = await trusted(fx);
    expect(failed(results)).toEqual([`image ${fx.imageCids[0]}`]);
    expect(results.find((r) => !r.ok)?.detail).toMatch(/missing/);
  });

  it('one byte of the record', async () => {
    const fx = await makeExport('local');
    await flipByte(join(fx.dir, 'record.cbor'), (b) => b.indexOf('MKL-') + 5);
    expect(failed(await trusted(fx))).toEqual(['record.cid']);
  });

  it('one event body (not the proven one)', async () => {
    const fx = await makeExport('local');
    await editJson<ChainEvent[]>(join(fx.dir, 'events.json'), (events) => {
      (events[1]?.body as Record<string, unknown>).note = 'tưới nước!';
    });
    const results = await trusted(fx);
    expect(failed(results)).toEqual(['chain']);
    expect(results.find((r) => r.check === 'chain')?.detail).toMatch(/broken at seq 1/);
  });

  it('the proven event', async () => {
    const fx = await makeExport('local');
    await editJson<ChainEvent[]>(join(fx.dir, 'events.json'), (events) => {
      (events[2]?.body as Record<string, unknown>).dose_ml = 2500;
    });
    expect(failed(await trusted(fx))).toEqual(['chain', 'proof.inclusion']);
  });

  it('the enrolment event no longer naming the record', async () => {
    const fx = await makeExport('local');
    await editJson<ChainEvent[]>(join(fx.dir, 'events.json'), (events) => {
      (events[0]?.body as Record<string, unknown>).record_cid = fx.imageCids[0];
    });
    expect(failed(await trusted(fx))).toEqual(['record.in-chain', 'chain']);
  });

  it('the anchored root', async () => {
    const fx = await makeExport('local');
    await editJson<{ checkpoint: { root_hex: string } }>(join(fx.dir, 'anchor.json'), (a) => {
      a.checkpoint.root_hex = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    });
    expect(failed(await trusted(fx))).toEqual(['anchor.signature', 'anchor.root']);
  });

  it('a checkpoint signed by a key other than the trusted one', async () => {
    const fx = await makeExport('local');
    const results = await verifyExport(fx.dir, { trustKey: generateCheckpointKey().did });
    expect(failed(results)).toEqual(['anchor.signature', 'anchor.trust']);
  });

  it('the Cardano transaction metadata', async () => {
    const fx = await makeExport('cardano');
    const { root_hex } = JSON.parse(await readFile(join(fx.dir, 'proof.json'), 'utf8')) as { root_hex: string };
    const other = `${root_hex.slice(0, 62)}${root_hex.endsWith('00') ? '01' : '00'}`;
    await editJson<{ tx_cbor_hex: string }>(join(fx.dir, 'anchor.json'), (a) => {
      expect(a.tx_cbor_hex).toContain(`5820${root_hex}`);
      a.tx_cbor_hex = a.tx_cbor_hex.replace(`5820${root_hex}`, `5820${other}`);
    });
    expect(failed(await verifyExport(fx.dir))).toEqual(['anchor.signature', 'anchor.root', 'anchor.trust']);
  });

  it('a missing anchor.json', async () => {
    const fx = await makeExport('local');
    await unlink(join(fx.dir, 'anchor.json'));
    expect(failed(await trusted(fx))).toEqual(['anchor.signature', 'anchor.root', 'anchor.trust']);
  });
});

describe('the CLI', () => {
  it('prints PASS lines and returns 0, FAIL and 1, usage and 2', async () => {
    const fx = await makeExport('local');
    const lines: string[] = [];
    expect(await runCli([fx.dir, '--trust-key', fx.trustedDid, '--expect', 'tree-42'], (l) => lines.push(l))).toBe(0);
    expect(lines.filter((l) => l.startsWith('PASS '))).toHaveLength(11);
    expect(lines).toContain('all 11 checks passed');
    const unpinned: string[] = [];
    expect(await runCli([fx.dir], (l) => unpinned.push(l))).toBe(1);
    expect(unpinned.find((l) => l.startsWith('FAIL anchor.trust '))).toMatch(/trusted only if you trust key/);
    await flipByte(join(fx.dir, 'record.cbor'), (b) => b.indexOf('MKL-') + 5);
    const after: string[] = [];
    expect(await runCli([fx.dir, '--trust-key', fx.trustedDid], (l) => after.push(l))).toBe(1);
    expect(after).toContain(after.find((l) => l.startsWith('FAIL record.cid ')));
    expect(await runCli([], () => undefined)).toBe(2);
    expect(await runCli([fx.dir, '--bogus'], () => undefined)).toBe(2);
    expect(await runCli([fx.dir, '--confirmations', 'many'], () => undefined)).toBe(2);
  });

  it('runs as `tsx main.ts <dir>` with the exit code of the verdict', async () => {
    const fx = await makeExport('local');
    const run = promisify(execFile);
    const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
    const main = join(import.meta.dirname, 'main.ts');
    const ok = await run(tsx, [main, fx.dir, '--trust-key', fx.trustedDid]);
    expect(ok.stdout).toMatch(/^PASS anchor\.root /m);
    expect(ok.stdout).toMatch(/all 11 checks passed/);
    await flipByte(join(fx.dir, 'images', fx.imageCids[0] as string), () => 0);
    const bad = await run(tsx, [main, fx.dir, '--trust-key', fx.trustedDid]).catch((err: { code: number; stdout: string }) => err);
    expect('code' in bad ? bad.code : 0).toBe(1);
    expect(bad.stdout).toMatch(new RegExp(`^FAIL image ${fx.imageCids[0]} `, 'm'));
  }, 60_000);
});
