/**
 * Offline verification of an evidence export folder (FORMAT.md). Each check
 * is independent: a broken image does not hide a broken chain. The result
 * is a list of named PASS/FAIL lines; nothing here needs the server or the
 * network.
 */
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { bytesMatchCid, canonicalCid } from '../cid.js';
import { canonicalEventBytes, chainRoot, verifyChain, type ChainEvent } from '../chain.js';
import { verifyCheckpoint } from '../checkpoint.js';
import { decodeAnchorTx } from '../cardano.js';
import { verifyInclusion } from '../merkle.js';
import { verifyRecord, type RecordVerdict } from '../record.js';
import { isSideRecord, verifySideRecord, type SideRecordVerdict } from '../side-record.js';
import { anchorTrust, type OnlineOptions } from './anchor-trust.js';
import { entityMatches } from '../entity-commitment.js';
import { imagePath, readExport, type AnchorFile, type Loaded, type LoadedExport } from './export-format.js';

/** One verifier output line. */
export interface CheckResult {
  readonly check: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** Options of {@link verifyExport}. */
export interface VerifyExportOptions {
  /** did:key the local-anchor checkpoint must be signed by (instead of the key the export claims). */
  readonly trustKey?: string;
  /** A traceability code or entity id the bundle must be about (`--expect`). */
  readonly expect?: string;
  /** Look a Cardano anchor up on chain (`--online`). */
  readonly online?: OnlineOptions;
}

/** Runs every check on the export at `dir`. */
export async function verifyExport(dir: string, options: VerifyExportOptions = {}): Promise<CheckResult[]> {
  const ex = await readExport(dir);
  const results: CheckResult[] = [];
  if (!ex.manifest.ok) results.push(fail('export', ex.manifest.error));
  const record = checkRecord(ex, results);
  await checkImages(dir, record, results);
  checkRecordInChain(ex, record, results);
  checkChain(ex.events, results);
  checkProof(ex, results);
  checkAnchor(ex, options, results);
  results.push(await checkTrust(ex, options));
  results.push(checkEntity(ex, record, options));
  return results;
}

/** What the record says about itself: its kind, images and the identifiers it names. */
interface RecordFacts {
  readonly kind: 'tree' | 'fruit' | 'farm_boundary';
  readonly images: readonly string[];
  readonly ids: Readonly<Record<string, string>>;
}

const pass = (check: string, detail: string): CheckResult => ({ check, ok: true, detail });
const fail = (check: string, detail: string): CheckResult => ({ check, ok: false, detail });

/** A tree record, or a fruit / farm-boundary record (side-record.ts): either names its images. */
function checkRecord(ex: LoadedExport, out: CheckResult[]): RecordFacts | undefined {
  if (!ex.recordBytes.ok || !ex.recordFile.ok) {
    out.push(fail('record.cid', firstError(ex.recordBytes, ex.recordFile)));
    return undefined;
  }
  const expected = { cid: ex.recordFile.value.cid, hash: ex.recordFile.value.hash };
  const bytes = ex.recordBytes.value;
  const v = isSideRecord(bytes) ? verifySideRecord(bytes, expected) : treeVerdict(verifyRecord(bytes, expected));
  out.push(
    v.ok
      ? pass('record.cid', `${v.cid} sha256 ${v.hash}${v.kind ? ` (${v.kind} record)` : ''}`)
      : fail('record.cid', v.reason ?? 'mismatch'),
  );
  // Images are checked even when the record's CID is off, as long as it decodes.
  if (!v.images) return undefined;
  const kind = v.kind === 'fruit' || v.kind === 'farm_boundary' ? v.kind : 'tree';
  return { kind, images: v.images, ids: v.ids ?? {} };
}

/** A tree record's verdict in the side-record verdict's shape. */
const treeVerdict = (v: RecordVerdict): SideRecordVerdict => ({
  ok: v.ok,
  ...(v.reason ? { reason: v.reason } : {}),
  ...(v.record ? { images: [...v.record.images], ids: { code: v.record.code } } : {}),
  ...(v.cid ? { cid: v.cid } : {}),
  ...(v.hash ? { hash: v.hash } : {}),
});

async function checkImages(dir: string, record: { images: readonly string[] } | undefined, out: CheckResult[]): Promise<void> {
  if (!record) {
    out.push(fail('image', 'no readable record, so no image list to check'));
    return;
  }
  for (const cid of record.images) {
    const path = imagePath(dir, cid);
    const name = `image ${cid}`;
    try {
      await access(path);
    } catch {
      out.push(fail(name, `images/${cid} is missing`));
      continue;
    }
    const ok = await bytesMatchCid(createReadStream(path), cid);
    out.push(ok ? pass(name, 'content matches its CID') : fail(name, 'content does not match its CID'));
  }
}

/**
 * The record must be named by the event that created the entity's evidence, written by the
 * owner, inside the anchored prefix: seq 0 `enroll` for trees and fruit, an owner `boundary`
 * event for a farm boundary version. Any other event naming it proves nothing: a contributor
 * (or anyone appending after the anchor) could have written it.
 */
function checkRecordInChain(ex: LoadedExport, record: RecordFacts | undefined, out: CheckResult[]): void {
  if (!ex.recordFile.ok || !ex.events.ok || !ex.proof.ok) {
    out.push(fail('record.in-chain', firstError(ex.recordFile, ex.events, ex.proof)));
    return;
  }
  const { cid, hash } = ex.recordFile.value;
  const wanted = safeCanonicalCid(cid);
  const n = ex.proof.value.n;
  const names = (e: ChainEvent) => {
    const body = (e.body ?? {}) as Record<string, unknown>;
    return typeof body.record_cid === 'string' && safeCanonicalCid(body.record_cid) === wanted && body.record_hash === hash;
  };
  const boundary = record?.kind === 'farm_boundary';
  const hit = ex.events.value.find(
    (e) =>
      names(e) &&
      e.author_role === 'owner' &&
      e.seq < n &&
      (boundary ? e.body.type === 'boundary' : e.seq === 0 && e.body.type === 'enroll'),
  );
  if (hit) {
    out.push(
      pass(
        'record.in-chain',
        `named by the owner's ${boundary ? 'boundary' : 'enrolment'} event seq ${hit.seq}, inside the anchored first ${n} events`,
      ),
    );
    return;
  }
  const other = ex.events.value.find(names);
  const why = !other
    ? `no event names record ${cid} with its hash`
    : other.author_role !== 'owner'
      ? `record ${cid} is named only by event seq ${other.seq}, which the owner did not write`
      : other.seq >= n
        ? `record ${cid} is named only by event seq ${other.seq}, after the anchored first ${n} events`
        : `record ${cid} is named by event seq ${other.seq}, which is not the owner's ${boundary ? 'boundary' : 'seq-0 enrolment'} event`;
  out.push(fail('record.in-chain', why));
}

function checkChain(events: Loaded<ChainEvent[]>, out: CheckResult[]): void {
  if (!events.ok) {
    out.push(fail('chain', events.error));
    return;
  }
  const verdict = verifyChain(events.value);
  out.push(
    verdict.ok
      ? pass('chain', `${events.value.length} events link and hash correctly`)
      : fail('chain', `broken at seq ${String(verdict.broken_at)}: ${verdict.reason ?? ''}`),
  );
}

function checkProof(ex: LoadedExport, out: CheckResult[]): void {
  if (!ex.proof.ok || !ex.events.ok) {
    const error = firstError(ex.proof, ex.events);
    out.push(fail('proof.inclusion', error), fail('proof.root', error));
    return;
  }
  const { index, n, leaf_hash, path, root_hex } = ex.proof.value;
  const events = ex.events.value;
  const event = events[index];
  out.push(
    guard(
      'proof.inclusion',
      () => {
        if (!event) return `events.json has no event ${index}`;
        const dataBytes = canonicalEventBytes(event);
        if (!verifyInclusion({ dataBytes, path, rootHex: root_hex, index, size: n })) return `event ${index} is not in root ${root_hex}`;
        if (!verifyInclusion({ leafHex: leaf_hash, path, rootHex: root_hex, index, size: n })) return 'proof leaf_hash is not the event';
        return null;
      },
      `event ${index} is leaf ${index} of ${n} under ${root_hex}`,
    ),
  );
  out.push(
    guard(
      'proof.root',
      () => {
        if (!Number.isSafeInteger(n) || n < 1 || n > events.length) return `n=${n} but events.json has ${events.length} events`;
        const root = chainRoot(events.slice(0, n));
        return root === root_hex ? null : `the first ${n} events have root ${root}`;
      },
      `root of the first ${n} events`,
    ),
  );
}

function checkAnchor(ex: LoadedExport, options: VerifyExportOptions, out: CheckResult[]): void {
  if (!ex.anchor.ok) {
    out.push(fail('anchor.signature', ex.anchor.error), fail('anchor.root', ex.anchor.error));
    return;
  }
  const anchor = ex.anchor.value;
  const claimed = guardValue(() => anchoredClaim(anchor, options, out));
  if (!claimed.ok) {
    // Only an undecodable Cardano transaction throws, before its signature line was written.
    out.push(fail('anchor.signature', claimed.error), fail('anchor.root', claimed.error));
    return;
  }
  if (!ex.proof.ok || !ex.events.ok) {
    out.push(fail('anchor.root', firstError(ex.proof, ex.events)));
    return;
  }
  const first = ex.events.value[0];
  const entity = first ? `${first.entity_type}/${first.entity_id}` : '';
  const { root_hex, n } = ex.proof.value;
  const c = claimed.value;
  const problems = [
    c.root_hex !== root_hex && `anchored root ${c.root_hex} is not the proof root ${root_hex}`,
    c.size !== n && `anchored size ${c.size} is not the proof size ${n}`,
    !entityMatches(c.entity, entity, anchor.entity_salt) &&
      `anchored entity ${c.entity} is not ${entity}${anchor.entity_salt ? ' (nor its commitment under entity_salt)' : ''}`,
  ].filter(Boolean);
  out.push(
    problems.length === 0
      ? pass('anchor.root', `${anchor.backend} anchor holds root ${root_hex} (n=${n})`)
      : fail('anchor.root', problems.join('; ')),
  );
}

/** Checks the anchor's own integrity (pushing anchor.signature) and returns what it anchors. */
function anchoredClaim(anchor: AnchorFile, options: VerifyExportOptions, out: CheckResult[]) {
  if (anchor.backend === 'local') {
    const key = options.trustKey ?? anchor.public_key;
    const v = verifyCheckpoint(anchor.checkpoint, key);
    const pinned = options.trustKey ? 'trusted key' : 'key named in anchor.json (pass --trust-key to pin it)';
    out.push(
      v.ok
        ? pass('anchor.signature', `checkpoint ${anchor.checkpoint.seq} signed by ${key}, ${pinned}`)
        : fail('anchor.signature', v.reason ?? 'invalid'),
    );
    return anchor.checkpoint;
  }
  const tx = decodeAnchorTx(anchor.tx_cbor_hex);
  const problems = [
    !tx.signatures_ok && 'witness signatures do not verify',
    !tx.metadata_bound && 'body does not commit to this metadata',
    anchor.tx_hash !== tx.tx_hash && `transaction hash is ${tx.tx_hash}, not ${anchor.tx_hash}`,
  ].filter(Boolean);
  out.push(
    problems.length === 0
      ? pass('anchor.signature', `Cardano tx ${tx.tx_hash} is well-signed (look it up on an explorer to see it on chain)`)
      : fail('anchor.signature', problems.join('; ')),
  );
  return tx;
}

async function checkTrust(ex: LoadedExport, options: VerifyExportOptions): Promise<CheckResult> {
  const anchor = ex.anchor;
  if (!anchor.ok) return fail('anchor.trust', anchor.error);
  const v = await guardAsync(() => anchorTrust(anchor.value, options));
  return v.ok ? { check: 'anchor.trust', ok: v.value.ok, detail: v.value.detail } : fail('anchor.trust', v.error);
}

/** Says which entity the bundle is about and what it rests on; with `--expect`, it must match. */
function checkEntity(ex: LoadedExport, record: RecordFacts | undefined, options: VerifyExportOptions): CheckResult {
  const first = ex.events.ok ? ex.events.value[0] : undefined;
  if (!first) return fail('entity', 'events.json names no entity');
  const ids = record?.ids ?? {};
  const named = Object.entries(ids)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const rests = !ex.anchor.ok
    ? 'no readable anchor'
    : ex.anchor.value.backend === 'local'
      ? `local checkpoint ${ex.anchor.value.checkpoint.seq} of log ${ex.anchor.value.checkpoint.log_id}`
      : `Cardano transaction ${ex.anchor.value.tx_hash}`;
  const what = `${first.entity_type} ${first.entity_id}${named ? ` (${named})` : ''}, resting on ${rests}`;
  const own = ids.fruit_id ?? ids.farm_id;
  // A farm's chain is named `<owner id>/<farm_id>` (farms are per account), or by the bare farm_id for farms bound before that.
  const sameEntity = own === first.entity_id || (ids.farm_id !== undefined && first.entity_id.endsWith(`/${ids.farm_id}`));
  if (own !== undefined && !sameEntity)
    return fail('entity', `the record is about ${own}, but the chain is ${first.entity_type}/${first.entity_id}`);
  if (options.expect === undefined) return pass('entity', what);
  const candidates = [first.entity_id, ...Object.values(ids)].map((x) => x.toLowerCase());
  return candidates.includes(options.expect.toLowerCase())
    ? pass('entity', `${what}; matches the expected ${options.expect}`)
    : fail('entity', `this bundle is about ${what}, not the expected ${options.expect}`);
}

async function guardAsync<T>(run: () => Promise<T>): Promise<Loaded<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

function guard(check: string, run: () => string | null, okDetail: string): CheckResult {
  const r = guardValue(run);
  if (!r.ok) return fail(check, r.error);
  return r.value === null ? pass(check, okDetail) : fail(check, r.value);
}

function guardValue<T>(run: () => T): Loaded<T> {
  try {
    return { ok: true, value: run() };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

function firstError(...loaded: Loaded<unknown>[]): string {
  for (const l of loaded) if (!l.ok) return l.error;
  return 'unknown error';
}

function safeCanonicalCid(value: string): string | null {
  try {
    return canonicalCid(value);
  } catch {
    return null;
  }
}
