import { describe, expect, it } from 'vitest';
import { exclusiveMatches, summarise, type DecidedTrack } from '../../../shared/src/domain/survey-summary.js';
import { labelFor } from './survey-review.js';

const track = (n: number, verdict: DecidedTrack['verdict'], id: string | null = null): DecidedTrack => ({
  track_no: n,
  verdict,
  individual_id: id,
  name: null,
  candidates: [],
  frame_cids: [],
  first_s: 0,
  last_s: 1,
  label: 'cow',
});

describe('survey summary', () => {
  it('counts an animal seen on two tracks once, each uncertain or unknown track once, and lists the enrolled not seen', () => {
    const s = summarise(
      'animal',
      [track(1, 'match', 'a'), track(2, 'match', 'a'), track(3, 'uncertain'), track(4, 'no_match')],
      [
        { id: 'a', name: 'A' },
        { id: 'b', name: 'B' },
      ],
      null,
    );
    expect(s.count).toBe(3);
    expect(s.known).toEqual([{ individual_id: 'a', name: null, tracks: [1, 2] }]);
    expect(s.uncertain.map((x) => x.track)).toEqual([3]);
    expect(s.unknown).toEqual([{ track: 4 }]);
    // Track 4 was not recognised and may be B: B is not named, not "not seen".
    expect(s.not_seen).toEqual([]);
    expect(s.not_named).toEqual([{ individual_id: 'b', name: 'B' }]);
    // With every head named, B had its chance to be seen and was not.
    const all = summarise(
      'animal',
      [track(1, 'match', 'a'), track(2, 'match', 'a')],
      [
        { id: 'a', name: 'A' },
        { id: 'b', name: 'B' },
      ],
      null,
    );
    expect(all).toMatchObject({ count: 1, not_seen: [{ individual_id: 'b', name: 'B' }], not_named: [] });
  });

  it("lists as not seen only the animals no track names or could be: an uncertain track's candidates are maybe seen", () => {
    const herd = ['a', 'b', 'c', 'd'].map((id) => ({ id, name: id.toUpperCase() }));
    const unsure = {
      ...track(2, 'uncertain'),
      candidates: [
        { individual_id: 'b', name: 'B', probability: 0.6 },
        { individual_id: 'a', name: 'A', probability: 0.3 },
        { individual_id: 'x', name: 'of another farm', probability: 0.2 },
      ],
    };
    const s = summarise('animal', [track(1, 'match', 'a'), unsure, track(3, 'no_match')], herd, null);
    expect(s.count).toBe(3);
    expect(s.maybe_seen).toEqual([{ individual_id: 'b', name: 'B' }]);
    expect(s.not_named.map((x) => x.individual_id)).toEqual(['c', 'd']);
    expect(s.not_seen).toEqual([]);
    const named = summarise('animal', [track(1, 'match', 'a'), unsure], herd, null);
    expect(named.not_seen.map((x) => x.individual_id)).toEqual(['c', 'd']);
    // Without a farm there is no herd the survey could have seen: nobody is listed as not seen.
    expect(summarise('animal', [unsure], [], null)).toMatchObject({ not_seen: [], maybe_seen: [], not_named: [] });
  });

  it('never lets two tracks seen at the same time be one animal; a later track may be it again', () => {
    const t = (n: number, first: number, last: number, p: number): DecidedTrack => ({
      ...track(n, 'match', 'a'),
      first_s: first,
      last_s: last,
      candidates: [{ individual_id: 'a', name: null, probability: p }],
    });
    const out = exclusiveMatches([t(1, 0, 3, 0.9), t(2, 1, 2, 0.97), t(3, 5, 6, 0.8)]);
    expect(out.map((x) => [x.track_no, x.verdict, x.individual_id])).toEqual([
      [1, 'uncertain', null],
      [2, 'match', 'a'],
      [3, 'match', 'a'],
    ]);
    expect(summarise('animal', out, [{ id: 'a', name: null }], null).count).toBe(2);
  });

  it('counts fruit by unique tracks, per tree', () => {
    const s = summarise('fruit', [track(1, 'counted'), track(2, 'counted')], [], 'tree-1');
    expect(s).toMatchObject({ count: 2, fruit_per_tree: [{ tree_id: 'tree-1', count: 2 }] });
  });
});

describe('review labels', () => {
  it('maps confirm and correct onto the identify_verdict labels', () => {
    expect(labelFor({ verdict: 'match', individual_id: 'a' }, { action: 'confirm' })).toEqual({ verdict: 'correct', correct_id: 'a' });
    expect(labelFor({ verdict: 'no_match', individual_id: null }, { action: 'confirm' })).toEqual({ verdict: 'unknown_ok' });
    expect(() => labelFor({ verdict: 'uncertain', individual_id: null }, { action: 'confirm' })).toThrow();
    expect(labelFor({ verdict: 'match', individual_id: 'a' }, { action: 'correct', individual_id: 'b' })).toEqual({
      verdict: 'wrong',
      correct_id: 'b',
    });
    expect(labelFor({ verdict: 'match', individual_id: 'a' }, { action: 'correct', individual_id: null })).toEqual({ verdict: 'wrong' });
    expect(labelFor({ verdict: 'uncertain', individual_id: null }, { action: 'correct', individual_id: 'b' })).toEqual({
      verdict: 'other',
      correct_id: 'b',
    });
    expect(labelFor({ verdict: 'uncertain', individual_id: null }, { action: 'correct', individual_id: null })).toEqual({
      verdict: 'unknown_ok',
    });
  });
});
