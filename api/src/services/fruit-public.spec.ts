import { describe, expect, it } from 'vitest';
import { answerFor } from './fruit-public.service.js';

const c = (id: string, confidence: 'match' | 'possible' | 'unlikely') => ({ fruit_id: id, confidence });

describe('the public verdict over the fruit still public at answer time', () => {
  it('keeps a match whose fruit is still public', () => {
    expect(answerFor('match', [c('a', 'match'), c('b', 'unlikely')])).toEqual({
      verdict: 'match',
      candidates: [c('a', 'match'), c('b', 'unlikely')],
    });
  });

  it('never passes a match to the next fruit down when the matched one was unpublished meanwhile', () => {
    expect(answerFor('match', [c('b', 'unlikely'), c('c', 'unlikely')])).toEqual({
      verdict: 'no_match',
      candidates: [c('b', 'unlikely'), c('c', 'unlikely')],
    });
  });

  it('keeps uncertain while one of its short list is left, and says no_match once none is', () => {
    expect(answerFor('uncertain', [c('b', 'possible'), c('c', 'unlikely')]).verdict).toBe('uncertain');
    expect(answerFor('uncertain', [c('c', 'unlikely')]).verdict).toBe('no_match');
    expect(answerFor('uncertain', []).verdict).toBe('no_match');
  });

  it('reads a result without a verdict (a job queued before it had one) as no_match, and a no_match never rises', () => {
    expect(answerFor(undefined, [c('a', 'unlikely')]).verdict).toBe('no_match');
    expect(answerFor('no_match', [c('a', 'possible')]).verdict).toBe('no_match');
  });
});
