/**
 * A shortlist variant measured by the accuracy benchmark (`--lnbnn`): local
 * naive-Bayes nearest-neighbour voting (LNBNN, as HotSpotter does) over an
 * HNSW index of every gallery XFeat descriptor. Each query descriptor's K
 * nearest gallery descriptors vote for their individual with
 * (distance of the (K+1)-th neighbour − their distance), nearest vote per
 * individual only; individuals are ranked by the sum.
 */
import hnswlib from 'hnswlib-node';
import { XFEAT_DIM, type XFeatFeatures } from '../workers/src/vision/xfeat.js';

export class LnbnnIndex {
  private readonly hnsw: hnswlib.HierarchicalNSW;
  private readonly owner: string[] = [];

  constructor(gallery: ReadonlyArray<{ individualId: string; features: XFeatFeatures }>) {
    const total = gallery.reduce((n, g) => n + g.features.count, 0);
    this.hnsw = new hnswlib.HierarchicalNSW('ip', XFEAT_DIM);
    this.hnsw.initIndex(Math.max(1, total), 12, 64);
    for (const g of gallery) {
      for (let i = 0; i < g.features.count; i++) {
        this.hnsw.addPoint(Array.from(g.features.desc.subarray(i * XFEAT_DIM, (i + 1) * XFEAT_DIM)), this.owner.length);
        this.owner.push(g.individualId);
      }
    }
    this.hnsw.setEf(48);
  }

  get size(): number {
    return this.owner.length;
  }

  /** Individuals ranked by LNBNN score, best first. */
  rank(q: XFeatFeatures, k = 5): Array<{ individualId: string; score: number }> {
    const score = new Map<string, number>();
    for (let i = 0; i < q.count; i++) {
      const res = this.hnsw.searchKnn(Array.from(q.desc.subarray(i * XFEAT_DIM, (i + 1) * XFEAT_DIM)), k + 1);
      // 'ip' distance is 1 − cosine; results come nearest first.
      const order = res.neighbors.map((n, j) => ({ n, d: res.distances[j]! })).sort((a, b) => a.d - b.d);
      const norm = order[order.length - 1]!.d;
      const seen = new Set<string>();
      for (const { n, d } of order.slice(0, k)) {
        const ind = this.owner[n]!;
        if (seen.has(ind)) continue;
        seen.add(ind);
        score.set(ind, (score.get(ind) ?? 0) + Math.max(0, norm - d));
      }
    }
    return [...score.entries()].map(([individualId, s]) => ({ individualId, score: s })).sort((a, b) => b.score - a.score);
  }
}
