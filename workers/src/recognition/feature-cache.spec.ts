import { describe, expect, it } from 'vitest';
import { createFeatureCache } from './feature-cache.js';

const b = (n: number, v = 1) => new Uint8Array(n).fill(v);

describe('feature cache', () => {
  it('gives back what it holds and names what it lacks, in the order asked', () => {
    const c = createFeatureCache(100);
    c.put('a', b(10, 1));
    c.put('b', b(10, 2));
    const { found, missing } = c.take(['b', 'x', 'a']);
    expect([...found.keys()]).toEqual(['b', 'a']);
    expect(found.get('a')![0]).toBe(1);
    expect(missing).toEqual(['x']);
  });

  it('stays within its bytes by dropping the least recently used first', () => {
    const c = createFeatureCache(30);
    c.put('a', b(10));
    c.put('b', b(10));
    c.put('c', b(10));
    c.take(['a']); // a is now the most recent; b the least
    c.put('d', b(10));
    expect(c.bytes).toBe(30);
    expect(c.take(['a', 'b', 'c', 'd']).missing).toEqual(['b']);
  });

  it('keeps nothing when given no memory, and never an entry larger than all of it', () => {
    const none = createFeatureCache(0);
    none.put('a', b(1));
    expect(none.take(['a']).missing).toEqual(['a']);
    const small = createFeatureCache(5);
    small.put('big', b(6));
    expect(small.bytes).toBe(0);
  });
});
