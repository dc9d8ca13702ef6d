/**
 * From decided tracks to the survey's answer: unique individuals (known ones merged when two
 * tracks name the same animal: it left the frame and came back), uncertain and unknown tracks
 * (each one head), the enrolled animals not seen, and the count. Pure, for tests and the handler.
 *
 * "Not seen" names only animals the survey could have seen and did not: `enrolled` is the surveyed
 * farm's animals of the surveyed species (nobody else's, and none at all for a survey without a
 * farm), less those a track names, less those an uncertain track lists as a candidate: an animal
 * the matcher could not tell from another may well have been there, so it is `maybe_seen`
 * (issue 39: the three cows on screen were listed as not seen).
 *
 * A track the matcher could not name at all (`unknown`) may still be an enrolled animal, so while
 * any track is unknown the rest of the herd is `not_named`, never `not_seen`: up to that many of
 * them may have been on the video. `not_seen` is only said when every head counted was named or
 * offered, the one case where the survey truly had its chance to see each of them.
 */
export interface DecidedTrack {
  track_no: number;
  verdict: 'match' | 'uncertain' | 'no_match' | 'counted';
  individual_id: string | null;
  name: string | null;
  candidates: { individual_id: string; name: string | null; probability: number }[];
  frame_cids: string[];
  first_s: number;
  last_s: number;
  label: string;
}

export interface Enrolled {
  id: string;
  name: string | null;
}

export function summarise(kind: 'animal' | 'fruit', tracks: DecidedTrack[], enrolled: Enrolled[], treeId: string | null) {
  if (kind === 'fruit') {
    return {
      count: tracks.length,
      fruit_per_tree: [{ tree_id: treeId, count: tracks.length }],
      known: [],
      uncertain: [],
      unknown: [],
      not_seen: [],
      maybe_seen: [],
      not_named: [],
    };
  }
  const known = new Map<string, { individual_id: string; name: string | null; tracks: number[] }>();
  const uncertain = [];
  const unknown = [];
  for (const t of tracks) {
    if (t.verdict === 'match' && t.individual_id) {
      const k = known.get(t.individual_id) ?? { individual_id: t.individual_id, name: t.name, tracks: [] };
      k.tracks.push(t.track_no);
      known.set(t.individual_id, k);
    } else if (t.verdict === 'uncertain') {
      uncertain.push({ track: t.track_no, candidates: t.candidates });
    } else {
      unknown.push({ track: t.track_no });
    }
  }
  const seen = new Set(known.keys());
  const maybe = new Set(uncertain.flatMap((u) => u.candidates.map((c) => c.individual_id)).filter((id) => !seen.has(id)));
  const entry = (e: Enrolled) => ({ individual_id: e.id, name: e.name });
  const rest = enrolled.filter((e) => !seen.has(e.id) && !maybe.has(e.id)).map(entry);
  return {
    count: known.size + uncertain.length + unknown.length,
    known: [...known.values()],
    uncertain,
    unknown,
    not_seen: unknown.length ? [] : rest,
    maybe_seen: enrolled.filter((e) => maybe.has(e.id)).map(entry),
    not_named: unknown.length ? rest : [],
  };
}

/**
 * An animal is never in two places at once: when tracks that overlap in time match the same
 * individual, only the most probable (then the longest) keeps the match and the others become
 * `uncertain`, with their candidates. Tracks that follow each other (the animal left the picture
 * and came back) keep their matches and are counted once by `summarise`.
 */
export function exclusiveMatches<T extends DecidedTrack>(tracks: T[]): T[] {
  const prob = (t: DecidedTrack) => t.candidates.find((c) => c.individual_id === t.individual_id)?.probability ?? 0;
  const ranked = [...tracks].sort((a, b) => prob(b) - prob(a) || b.last_s - b.first_s - (a.last_s - a.first_s));
  const kept: T[] = [];
  const demoted = new Set<T>();
  for (const t of ranked) {
    if (t.verdict !== 'match' || !t.individual_id) continue;
    const clash = kept.some((k) => k.individual_id === t.individual_id && k.first_s <= t.last_s && t.first_s <= k.last_s);
    if (clash) demoted.add(t);
    else kept.push(t);
  }
  return tracks.map((t) => (demoted.has(t) ? { ...t, verdict: 'uncertain' as const, individual_id: null, name: null } : t));
}
