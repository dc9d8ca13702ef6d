import type { Container } from '../../../shared/src/container.js';

/**
 * The identify answers still waiting for the owner's decision (issue 24, "leave it for later"):
 * `uncertain`, or `no_match` that showed closest individuals, with no label yet. Every decision
 * (identify_verdict, confirm, enrol-as-new) writes an identify_verdicts row, so that row is what
 * takes a query off the queue; nothing else needs to remember it.
 */
const PENDING = `from identify_queries q
  where q.owner_id = $1 and ($2::text is null or q.kind = $2)
    and (q.result->>'verdict' = 'uncertain'
         or (q.result->>'verdict' = 'no_match' and jsonb_typeof(q.result->'closest') = 'array' and jsonb_array_length(q.result->'closest') > 0))
    and not exists (select 1 from identify_verdicts v where v.query_id = q.id and v.owner_id = q.owner_id)`;

/**
 * The individuals to choose among. A batch row's and a survey track's answers store no `closest`
 * (both skip that work), so their own candidates are offered instead, shaped alike: without them
 * an undecided row or track would wait in the queue with nothing to choose.
 */
export function closestOf(result: Record<string, unknown>): Record<string, unknown>[] {
  if (Array.isArray(result.closest) && result.closest.length) return result.closest as Record<string, unknown>[];
  if (!(result.batch_id || result.survey_id) || !Array.isArray(result.candidates)) return [];
  return (result.candidates as { photos?: { image_id: string; cid: string }[] }[]).map((c, i) => ({
    ...c,
    rank: i + 1,
    photos: (c.photos ?? []).map((p) => ({ ...p, url: `/api/blobs/${p.cid}` })),
    match_lines: null,
  }));
}

export function createReviewQueueService(c: Container) {
  return {
    /** One page, newest first; `total` is also the tab's badge. */
    async list(ownerId: string, q: { kind?: string; limit: number; offset: number }) {
      const params = [ownerId, q.kind ?? null];
      const total = await c.db.query<{ n: number }>(`select count(*)::int as n ${PENDING}`, params);
      const rows = await c.db.query<{
        id: string;
        kind: string;
        image_cids: string[];
        result: Record<string, unknown>;
        created_at: Date | string;
      }>(`select q.id, q.kind, q.image_cids, q.result, q.created_at ${PENDING} order by q.created_at desc, q.id limit $3 offset $4`, [
        ...params,
        q.limit,
        q.offset,
      ]);
      const items = rows.rows.map((r) => ({
        query_id: r.id,
        kind: r.kind,
        verdict: String(r.result.verdict),
        // A video identify stores the video's CID as its photo; a survey track its crops; a batch row its fruit's views.
        source: r.result.survey_id ? 'survey' : r.result.batch_id ? 'batch' : r.result.frames_used != null ? 'video' : 'photos',
        photos: r.image_cids.map((cid) => ({ cid, url: `/api/blobs/${cid}` })),
        closest: closestOf(r.result),
        created_at: new Date(r.created_at).toISOString(),
      }));
      return { items, total: total.rows[0]!.n, limit: q.limit, offset: q.offset };
    },
  };
}
