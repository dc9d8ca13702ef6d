import type { OwnerScope } from '../../../shared/src/access/owner-scope.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { animalDriftRepo } from '../../../shared/src/repos/animal-drift.repo.js';
import { animalDid } from '../../../shared/src/domain/animal-did.js';

/**
 * `GET /api/animal/drift/report`: which animals of a farm need new photos, which pairs are about
 * to be confused, and which channels to capture. Everything is measured from what is stored:
 * the answers of past identify queries (their top candidate's probability and verdict) and the
 * global embeddings of the enrolled photos. Nothing is estimated without data: an animal with
 * fewer than DRIFT_MIN_MATCHES answers is not judged.
 */

/** Answers an animal needs as top candidate before its trend is judged. */
export const DRIFT_MIN_MATCHES = 4;
/** A drop of the recent mean probability by at least this much is "weakening". */
export const DRIFT_DROP = 0.1;
/** Recent answers compared against the earlier ones (at most; half of them when fewer). */
const RECENT = 5;
/** Newest stored queries read per report, and most embeddings compared: bounds a GET's cost. */
const MAX_QUERIES = 5000;
const MAX_VECTORS = 2000;

type Channel = 'body' | 'face' | 'bio';
interface Answer {
  p: number;
  verdict: string;
  at: number;
}
interface StoredResult {
  verdict?: string;
  candidates?: { individual_id?: string; probability?: number }[];
}
type StoredEvidence = { individual_id: string; evidence: { local: number } }[] | null;
/**
 * A runner-up whose local (keypoint) evidence reaches this share of the top answer's was a close
 * call; in an `uncertain` answer, one whose probability reaches this share of the leader's was
 * offered together with it.
 */
export const CLOSE_CALL = 0.8;

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const round = (x: number) => Math.round(x * 1e4) / 1e4;
const toFloats = (b: Uint8Array) => new Float32Array(Uint8Array.from(b).buffer);

function cosine(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let k = 0; k < a.length; k++) d += a[k]! * b[k]!;
  return d;
}

const pairKey = (x: string, y: string) => (x < y ? `${x}|${y}` : `${y}|${x}`);
const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

/**
 * Top-candidate answers per animal; how often two animals were offered together as `uncertain`;
 * and close calls: a runner-up whose keypoint evidence came near the top answer's (from the
 * ranked evidence each query keeps).
 */
export function readAnswers(rows: { result: StoredResult; evidence: StoredEvidence; created_at: Date | string }[], farm: Set<string>) {
  const answers = new Map<string, Answer[]>();
  const together = new Map<string, number>();
  const close = new Map<string, number>();
  for (const r of rows) {
    const ranked = (r.evidence ?? []).filter((x) => farm.has(x.individual_id));
    const lead = ranked[0];
    if (lead && lead.evidence.local > 0) {
      for (const y of ranked.slice(1))
        if (y.evidence.local >= CLOSE_CALL * lead.evidence.local) bump(close, pairKey(lead.individual_id, y.individual_id));
    }
    const cands = (r.result?.candidates ?? []).filter((x) => x.individual_id && farm.has(x.individual_id));
    const top = r.result?.candidates?.[0];
    if (top?.individual_id && farm.has(top.individual_id)) {
      const list = answers.get(top.individual_id) ?? [];
      list.push({ p: Number(top.probability ?? 0), verdict: String(r.result.verdict), at: new Date(r.created_at).getTime() });
      answers.set(top.individual_id, list);
    }
    // Offered together: the two leading candidates of an `uncertain` answer, the runner-up within
    // CLOSE_CALL of the leader's probability; not every animal listed: under a strict threshold (a
    // species no dataset stood for) almost every answer is `uncertain`, and its list holds animals
    // far behind the leader.
    const [lead1, lead2] = cands;
    if (
      r.result?.verdict === 'uncertain' &&
      lead1 &&
      lead2 &&
      Number(lead2.probability ?? 0) >= CLOSE_CALL * Number(lead1.probability ?? 0)
    ) {
      bump(together, pairKey(lead1.individual_id!, lead2.individual_id!));
    }
  }
  return { answers, together, close };
}

/**
 * Animals whose recent answers are weaker than their earlier ones, or mostly `uncertain` where the
 * earlier ones were mostly `match`: a change, not a threshold the animal never cleared (a species
 * no dataset stood for answers `uncertain` from the start, and new photos would not change that).
 */
export function weakening(answers: Map<string, Answer[]>) {
  const out = [];
  for (const [id, list] of answers) {
    if (list.length < DRIFT_MIN_MATCHES) continue;
    const sorted = [...list].sort((a, b) => a.at - b.at);
    const n = Math.min(RECENT, Math.floor(sorted.length / 2));
    const recent = sorted.slice(-n);
    const earlier = sorted.slice(0, -n);
    const drop = mean(earlier.map((x) => x.p)) - mean(recent.map((x) => x.p));
    const uncertainShare = recent.filter((x) => x.verdict !== 'match').length / recent.length;
    const matchedBefore = earlier.filter((x) => x.verdict === 'match').length / Math.max(1, earlier.length) > 0.5;
    if (drop < DRIFT_DROP && !(uncertainShare >= 0.5 && matchedBefore)) continue;
    out.push({
      id,
      answers: sorted.length,
      earlier_mean: round(mean(earlier.map((x) => x.p))),
      recent_mean: round(mean(recent.map((x) => x.p))),
      recent_not_match: round(uncertainShare),
      reason: drop >= DRIFT_DROP ? 'probability_dropping' : 'mostly_uncertain',
    });
  }
  return out;
}

/**
 * Pairs about to be confused: photos as alike as one animal photographed twice (cross-similarity
 * of embeddings at least the lower self-similarity) that also made two close calls in stored
 * answers; or offered together as `uncertain` twice.
 */
function closePairs(vectors: Map<string, Float32Array[]>, together: Map<string, number>, close: Map<string, number>) {
  const ids = [...vectors.keys()].sort();
  const within = new Map<string, number>();
  for (const id of ids) {
    const vs = vectors.get(id)!;
    const sims: number[] = [];
    for (let i = 0; i < vs.length; i++) for (let j = i + 1; j < vs.length; j++) sims.push(cosine(vs[i]!, vs[j]!));
    if (sims.length) within.set(id, mean(sims));
  }
  const pairs = [];
  for (let x = 0; x < ids.length; x++) {
    for (let y = x + 1; y < ids.length; y++) {
      const [a, b] = [ids[x]!, ids[y]!];
      let cross = -1;
      for (const va of vectors.get(a)!)
        for (const vb of vectors.get(b)!) if (va.length === vb.length) cross = Math.max(cross, cosine(va, vb));
      const bar = Math.min(within.get(a) ?? 1, within.get(b) ?? 1);
      const confusedInQueries = together.get(pairKey(a, b)) ?? 0;
      const closeCalls = close.get(pairKey(a, b)) ?? 0;
      if ((cross >= bar && closeCalls >= 2) || confusedInQueries >= 2) {
        pairs.push({
          a,
          b,
          similarity: round(cross),
          self_similarity: round(bar),
          uncertain_together: confusedInQueries,
          close_calls: closeCalls,
        });
      }
    }
  }
  return pairs.sort((p, q) => q.similarity - p.similarity);
}

/** The ports the drift report reads through. */
export interface AnimalDriftDeps {
  db: Queryable;
  drift: typeof animalDriftRepo;
}

export function createAnimalDriftService({ db, drift }: AnimalDriftDeps) {
  /** Global embeddings of the farm's animals, of the most common model version (versions never mix). */
  async function embeddings(scope: OwnerScope, farmId: string) {
    const rows = await drift.farmEmbeddings(db, scope, farmId, MAX_VECTORS);
    const counts = new Map<string, number>();
    for (const x of rows) counts.set(x.model_version, (counts.get(x.model_version) ?? 0) + 1);
    const version = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
    const vectors = new Map<string, Float32Array[]>();
    const keypoints = new Map<string, number[]>();
    for (const x of rows.filter((y) => y.model_version === version)) {
      vectors.set(x.individual_id, [...(vectors.get(x.individual_id) ?? []), toFloats(x.global)]);
      keypoints.set(x.individual_id, [...(keypoints.get(x.individual_id) ?? []), x.keypoints ?? 0]);
    }
    return { vectors, keypoints };
  }

  return {
    async report(scope: OwnerScope, farmId: string) {
      const inds = await drift.farmAnimals(db, scope, farmId);
      const farm = new Set(inds.map((x) => x.id));
      const names = new Map(inds.map((x) => [x.id, x.name]));
      const stored = await drift.recentAnswers<StoredResult, StoredEvidence>(db, scope, MAX_QUERIES);
      const { answers, together, close } = readAnswers(stored, farm);
      const { vectors, keypoints } = await embeddings(scope, farmId);
      const who = (id: string) => ({ animal_did: animalDid(id), name: names.get(id) ?? null });
      // Few keypoints per photo: local evidence is thin, close-ups (bio: muzzle, face) give it more.
      const thin = (id: string) => mean(keypoints.get(id) ?? []) < 100;
      const needs = weakening(answers).map((w) => {
        const channels: Channel[] = ['body', ...(thin(w.id) ? (['bio'] as Channel[]) : [])];
        const { id, ...rest } = w;
        return { ...who(id), ...rest, channels };
      });
      // Alike as a whole: the whole-body look cannot tell them apart, local detail (face, muzzle) can.
      const pairs = closePairs(vectors, together, close).map(({ a, b, ...p }) => ({
        a: who(a),
        b: who(b),
        ...p,
        channels: ['face', 'bio'] as Channel[],
      }));
      const tally = new Map<Channel, number>();
      for (const x of [...needs.map((n) => n.channels), ...pairs.flatMap((p) => [p.channels, p.channels])])
        for (const ch of x) tally.set(ch, (tally.get(ch) ?? 0) + 1);
      return {
        farm_id: farmId,
        individuals_considered: farm.size,
        queries_considered: stored.length,
        needs_rephotography: needs,
        confusable_pairs: pairs,
        channels_to_capture: [...tally.entries()].sort((a, b) => b[1] - a[1]).map(([channel, n]) => ({ channel, animals: n })),
        rules: {
          min_answers: DRIFT_MIN_MATCHES,
          probability_drop: DRIFT_DROP,
          close_call: CLOSE_CALL,
          pair: 'embeddings as alike as one animal photographed twice plus two close calls, or offered together as uncertain twice',
        },
      };
    },
  };
}

export type AnimalDriftService = ReturnType<typeof createAnimalDriftService>;
