import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendEvent, eventInclusionProof, type ChainEvent } from '../chain.js';
import { GENESIS_CHECKPOINT_HASH, generateCheckpointKey, signCheckpoint } from '../checkpoint.js';
import { cidForBytes } from '../cid.js';
import { encodeRecord } from '../record.js';
import { verifyExport } from './verify-export.js';
import { writeExport, type EvidenceBundle } from './export-format.js';
import { fromBundleJson, toBundleJson } from './bundle.js';
import { runVerify } from './verify-main.js';

async function bundle(): Promise<EvidenceBundle & { did: string }> {
  const photo = randomBytes(1000);
  const cid = await cidForBytes(photo);
  const record = encodeRecord({
    code: 'MKL-w3gv5p7-ABCDEFGH',
    species: 'durian',
    geohash: 'w3gv5p7',
    images: [cid],
    created_at: '2026-07-01T00:00:00Z',
  });
  const events: ChainEvent[] = [];
  events.push(
    appendEvent(events, {
      entity_type: 'tree',
      entity_id: 't',
      body: { type: 'enroll', record_cid: record.cid, record_hash: record.hash },
      author_role: 'owner',
      created_at: '2026-07-01T00:00:00Z',
    }),
  );
  events.push(appendEvent(events, { entity_type: 'tree', entity_id: 't', body: { type: 'care' }, created_at: '2026-07-02T00:00:00Z' }));
  const proof = eventInclusionProof(events, 0);
  const key = generateCheckpointKey();
  const checkpoint = signCheckpoint(
    {
      log_id: 'l',
      seq: 0,
      entity: 'tree/t',
      size: 2,
      root_hex: proof.root_hex,
      prev_checkpoint_hash: GENESIS_CHECKPOINT_HASH,
      created_at: new Date(),
    },
    key.privateKey,
  );
  return {
    recordBytes: record.bytes,
    recordFile: { cid: record.cid, hash: record.hash },
    images: new Map([[cid, photo]]),
    events,
    proof,
    anchor: { backend: 'local', checkpoint, public_key: key.did },
    did: key.did,
  };
}

describe('evidence bundle (JSON form of an export)', () => {
  it('round-trips through JSON into a folder the verifier accepts', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-bundle-'));
    try {
      const b = await bundle();
      const json = JSON.parse(JSON.stringify(toBundleJson(b)));
      await writeExport(dir, fromBundleJson(json));
      const results = await verifyExport(dir, { trustKey: b.did });
      expect(results.filter((r) => !r.ok)).toEqual([]);
      expect(results).toHaveLength(10);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses documents that are not bundles, and the command says so', async () => {
    expect(() => fromBundleJson({ format: 'other' })).toThrow(/not a markless-evidence-bundle/);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-bundle-'));
    try {
      const file = path.join(dir, 'x.json');
      await (await import('node:fs/promises')).writeFile(file, '{"format":"nope"}');
      const lines: string[] = [];
      expect(await runVerify([file], (l) => lines.push(l))).toBe(1);
      expect(lines[0]).toMatch(/^FAIL export/);
      expect(await runVerify([], () => undefined)).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
