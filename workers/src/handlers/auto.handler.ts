import type { Container } from '../../../shared/src/container.js';
import { Kind, type JobHandler } from '../../../shared/src/domain/jobs.js';
import { individualsRepo } from '../../../shared/src/repos/individuals.repo.js';
import type { Descriptor } from '../vision/engine.js';
import { unusableReasons } from '../vision/intake.js';
import { settingsFor } from '../vision/settings.js';
import { describeOrRefuse } from './describe.js';
import { scopeOfJob } from '../../../shared/src/access/owner-scope.js';
import { identifyDescriptors, storeQuery, type IdentifyDeps } from './identify.handler.js';
import type { SearchPool } from '../../../shared/src/access/pool-owners.js';

/** The route whose answer the auto route returns for each kind. */
export const LANES: Record<Kind, string> = { tree: '/api/identify', fruit: '/api/fruit/identify', animal: '/api/animal/identify' };

/** Why nothing was recognised. */
export type NotRecognised = 'unusable_photo' | 'nothing_enrolled' | 'no_enrolled_match';

interface Checked {
  kind: Kind;
  verdict: 'match' | 'uncertain' | 'no_match';
  top_probability: number | null;
}

/**
 * Individuals of `kind` in these pools enrolled within `km` of the point, plus those enrolled
 * without a location (they cannot be ruled out). Animals move, so they are never narrowed.
 */
async function nearby(c: Container, owners: SearchPool, kind: Kind, near: { lat: number; lon: number }, km: number): Promise<Set<string>> {
  return new Set(await individualsRepo.nearbyIds(c.db, owners, kind, near, km));
}

async function poolSize(c: Container, owners: SearchPool, kind: Kind): Promise<number> {
  return individualsRepo.countLive(c.db, owners, kind);
}

/**
 * Descriptors per kind, computed once for each distinct set of describe settings (the quality
 * gate is not one of them: it is applied here per kind). A kind
 * for which some photo fails its gate (blank, dark, blurred) gets null.
 */
function describer(deps: IdentifyDeps, cids: string[]) {
  const cache = new Map<string, Promise<Descriptor[]>>();
  return async (kind: Kind): Promise<Descriptor[] | null> => {
    const s = settingsFor(kind);
    // Everything engine.describe reads from the settings besides the quality gate.
    const key = JSON.stringify([
      s.local,
      s.localSide,
      s.maxKeypoints,
      s.xfeatTopK,
      s.xfeatMaxUpscale,
      s.subject,
      s.subjectMargin,
      s.subjectMinScore,
    ]);
    let all = cache.get(key);
    if (!all) {
      all = (async () => {
        const out: Descriptor[] = [];
        for (const [i, cid] of cids.entries())
          out.push(await describeOrRefuse(deps.c, deps.engine, cid, `photo-${i + 1}`, kind, { enforceQuality: false }));
        return out;
      })();
      cache.set(key, all);
    }
    const ds = await all;
    return ds.every((d) => unusableReasons(d.quality, s.quality).length === 0) ? ds : null;
  };
}

/**
 * The auto route never guesses a class from appearance: there is no trained detector for bark,
 * peel or coat to trust (see models/README.md), and a flower or a packet must not be routed to a
 * lane just because it has texture. Instead it asks every pool the caller has enrolled (own plus
 * granted), and only a `match` picks the lane. Its result is that lane's own identify answer,
 * stored under `query_id` like a direct call, so `identify_verdict` labels work the same way.
 * When no pool matches, the answer is "not recognised" with what each pool said, so the client
 * can offer the kind's own route (where an unseen individual gets its honest `uncertain`).
 */
export function autoHandler(deps: IdentifyDeps): JobHandler<'identify_auto'> {
  return async (data) => {
    const checked: Checked[] = [];
    let best: { kind: Kind; full: Record<string, unknown>; p: number } | null = null;
    let described = 0;
    let enrolled = 0;
    const describeFor = describer(deps, data.images);
    const searcher = scopeOfJob(data);
    for (const kind of Kind.options) {
      const owners = await deps.poolOwners(searcher, kind);
      if ((await poolSize(deps.c, owners, kind)) === 0) continue;
      enrolled++;
      const queries = await describeFor(kind);
      if (!queries) continue;
      described++;
      const only = data.near && kind !== 'animal' ? await nearby(deps.c, owners, kind, data.near, deps.c.config.AUTO_NEAR_KM) : undefined;
      const full = await identifyDescriptors(deps, { owner_id: data.owner_id, kind, filters: {} }, queries, only);
      const top = (full.candidates[0]?.probability as number | undefined) ?? null;
      checked.push({ kind, verdict: full.verdict, top_probability: top });
      if (full.verdict === 'match' && (!best || (top ?? 0) > best.p)) best = { kind, full, p: top ?? 0 };
    }
    if (!best) {
      const reason: NotRecognised = enrolled === 0 ? 'nothing_enrolled' : described === 0 ? 'unusable_photo' : 'no_enrolled_match';
      return { kind: 'not_recognised', lane: null, result: null, reason, checked };
    }
    // storeQuery keeps the ranked evidence with the query and returns the answer without it.
    const result = await storeQuery(
      deps.c,
      { id: data.query_id, owner: scopeOfJob(data), kind: best.kind, cids: data.images },
      { query_id: data.query_id, ...best.full },
    );
    return { kind: best.kind, lane: LANES[best.kind], result: { ok: true, ...result }, checked };
  };
}
