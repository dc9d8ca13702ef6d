import type { OwnerScope } from '../../../shared/src/access/owner-scope.js';
import type { Kind } from '../../../shared/src/domain/jobs.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { identifyQueriesRepo } from '../../../shared/src/repos/identify-queries.repo.js';

/**
 * The identify answers still waiting for the owner's decision (issue 24, "leave it for later"):
 * `uncertain`, or `no_match` that showed closest individuals, with no label yet
 * (identify-queries.repo.ts says which). Every decision (identify_verdict, confirm, enrol-as-new)
 * writes a label, and the label is what takes a query off the queue; nothing else needs to remember it.
 */
export interface ReviewQueueDeps {
  db: Queryable;
  answers: Pick<typeof identifyQueriesRepo, 'pendingCount' | 'pendingPage'>;
}

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

export function createReviewQueueService({ db, answers }: ReviewQueueDeps) {
  return {
    /** One page, newest first; `total` is also the tab's badge. */
    async list(scope: OwnerScope, q: { kind?: Kind; limit: number; offset: number }) {
      const total = await answers.pendingCount(db, scope, q.kind ?? null);
      const rows = await answers.pendingPage(db, scope, q.kind ?? null, q.limit, q.offset);
      const items = rows.map((r) => ({
        query_id: r.id,
        kind: r.kind,
        verdict: String(r.result.verdict),
        // A video identify stores the video's CID as its photo; a survey track its crops; a batch row its fruit's views.
        source: r.result.survey_id ? 'survey' : r.result.batch_id ? 'batch' : r.result.frames_used != null ? 'video' : 'photos',
        photos: r.image_cids.map((cid) => ({ cid, url: `/api/blobs/${cid}` })),
        closest: closestOf(r.result),
        created_at: new Date(r.created_at).toISOString(),
      }));
      return { items, total, limit: q.limit, offset: q.offset };
    },
  };
}
