/**
 * The evidence export as one JSON document (what `GET /api/provenance/{tree_id}/export`
 * answers), and its conversion to and from the export folder of verify-cli/FORMAT.md. The JSON
 * form travels over HTTP in one response; the folder is what the offline verifier reads. The
 * conversion copies bytes and values as they are and fixes nothing, so a tampered bundle stays
 * tampered and the verifier reports it.
 *
 *   { format: "markless-evidence-bundle", version: 1,
 *     record_cbor_base64, record: {cid, hash, record?},
 *     images: { <cid>: <base64 bytes> }, events: [...], proof: {...}, anchor: {...} }
 */
import type { ChainEvent, EventProof } from '../chain.js';
import type { AnchorFile, EvidenceBundle, RecordFile } from './export-format.js';

export const BUNDLE_FORMAT = 'markless-evidence-bundle';
export const BUNDLE_VERSION = 1;

/** The JSON form of an export. */
export interface EvidenceBundleJson {
  format: typeof BUNDLE_FORMAT;
  version: typeof BUNDLE_VERSION;
  record_cbor_base64: string;
  record: RecordFile;
  images: Record<string, string>;
  events: ChainEvent[];
  proof: EventProof;
  anchor: AnchorFile;
}

/** In-memory export → JSON bundle. */
export function toBundleJson(b: EvidenceBundle): EvidenceBundleJson {
  const images: Record<string, string> = {};
  for (const [cid, bytes] of b.images) images[cid] = Buffer.from(bytes).toString('base64');
  return {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    record_cbor_base64: Buffer.from(b.recordBytes).toString('base64'),
    record: b.recordFile,
    images,
    events: [...b.events],
    proof: b.proof,
    anchor: b.anchor,
  };
}

/** JSON bundle → in-memory export. Throws when the document is not a bundle at all. */
export function fromBundleJson(value: unknown): EvidenceBundle {
  const j = value as Partial<EvidenceBundleJson>;
  if (typeof j !== 'object' || j === null || j.format !== BUNDLE_FORMAT || j.version !== BUNDLE_VERSION) {
    throw new Error(`not a ${BUNDLE_FORMAT} version ${BUNDLE_VERSION} document`);
  }
  const images = new Map<string, Uint8Array>();
  for (const [cid, b64] of Object.entries(j.images ?? {})) images.set(cid, new Uint8Array(Buffer.from(String(b64), 'base64')));
  return {
    recordBytes: new Uint8Array(Buffer.from(String(j.record_cbor_base64 ?? ''), 'base64')),
    recordFile: j.record as RecordFile,
    images,
    events: (j.events ?? []) as ChainEvent[],
    proof: j.proof as EventProof,
    anchor: j.anchor as AnchorFile,
  };
}
