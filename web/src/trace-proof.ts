import { h } from './dom.js';
import { cellMap } from './geohash.js';
import { currentLang, t, type TextKey } from './i18n.js';

/**
 * The proof behind a public page `/t/{code}`, folded under "for verifiers" (issue 39 item 8): the
 * anchor in words, the hash chain, the signing key's fingerprint, the Merkle root, the CIDs, the
 * code's geohash cell and the links to re-check it all offline. A shopper never has to open it.
 */

const row = (label: string, ...value: Array<Node | string | null>) => [h('dt', {}, label), h('dd', {}, ...value)];
/** A long token (CID, hash, fingerprint) that may break anywhere: the only text allowed to. */
const token = (s: string) => h('code', { class: 'token' }, s);

const STATES: Record<string, TextKey> = {
  confirmed: 'anchor_state_confirmed',
  submitted: 'anchor_state_submitted',
  failed: 'anchor_state_failed',
};

/** What the anchor really is, in words: a key of this server, or a Cardano transaction. */
export function anchorWords(a: Record<string, any> | null): HTMLElement {
  if (!a) return h('span', { class: 'anchor-words' }, t('anchor_none'));
  // The server's own sentence (`text: {vi, en}`) says it best; the fields below are the fallback.
  const said = a.text?.[currentLang()];
  const fp = a.fingerprint ?? a.key_fingerprint ?? a.public_key_fingerprint;
  const text =
    typeof said === 'string'
      ? said
      : a.backend === 'local'
        ? fp
          ? t('anchor_local_fp', { fp })
          : t('anchor_local')
        : a.backend === 'cardano'
          ? t('anchor_cardano', { tx: a.tx_hash ?? '—', n: a.confirmations ?? 0 })
          : `${a.backend}`;
  const link =
    a.explorer_url && /^https:\/\//.test(a.explorer_url)
      ? h('a', { href: a.explorer_url, rel: 'noopener noreferrer' }, t('view_tx'))
      : null;
  const state = STATES[a.status] ? t(STATES[a.status]!) : String(a.status);
  return h('span', { class: 'anchor-words' }, text, ' ', h('small', {}, t('anchor_status', { s: state })), ' ', link);
}

/** The resolve answer's fields the proof reads. */
export interface ProofInput {
  code: string;
  record: { images: string[]; geohash: string };
  record_cid: string;
  record_hash: string;
  image_count: number;
  has_location?: boolean;
  anchor: Record<string, any> | null;
}

/** The folded proof; `chain` is the public timeline's own check, null when it could not be read. */
export function proofDetails(r: ProofInput, chain: { ok: boolean; n: number } | null): HTMLElement {
  const a = r.anchor;
  const code = encodeURIComponent(r.code);
  return h(
    'details',
    { class: 'card verifiers' },
    h('summary', {}, t('for_verifiers')),
    h('p', {}, t('proof_intro')),
    h(
      'dl',
      {},
      row(t('anchor'), anchorWords(a)),
      chain ? row(t('proof_chain'), chain.ok ? t('proof_chain_ok', { n: chain.n }) : t('proof_chain_broken')) : null,
      a?.key_fingerprint ? row(t('proof_fingerprint'), token(a.key_fingerprint)) : null,
      a?.root_hex ? row(t('proof_merkle'), token(a.root_hex), ` (${a.size})`) : null,
      row(t('trace_code_label'), token(r.code)),
      row(t('record_cid'), token(r.record_cid)),
      row(t('record_hash'), token(r.record_hash)),
      row(a ? t('photos_in_record') : t('photos_in_record_unanchored'), String(r.record.images.length)),
      row(t('photos_held'), String(r.image_count)),
      row(
        t('proof_photo_cids'),
        h(
          'ul',
          { class: 'cids' },
          r.record.images.map((cid) => h('li', {}, token(cid))),
        ),
      ),
    ),
    a ? null : h('p', { class: 'hint' }, t('anchor_none_explain')),
    // The cell is exactly what the code prints (7 geohash characters): nothing more precise.
    r.has_location === false ? null : h('div', {}, h('h3', {}, t('proof_cell')), cellMap(r.record.geohash)),
    h(
      'p',
      {},
      h('a', { href: `/api/resolve/${code}` }, t('json')),
      ' · ',
      h('a', { href: `/api/resolve/${code}/export` }, t('export_bundle')),
      ' ',
      h('small', {}, t('export_hint')),
    ),
  );
}
