import { describe, expect, it } from 'vitest';
import { decide, decideNeed, type Action, type Standing } from './policy.js';

const ACTIONS: Action[] = ['read', 'write', 'label', 'delete', 'merge', 'grant'];

describe('the access policy', () => {
  it('lets the owner do everything', () => {
    for (const a of ACTIONS) expect(decide('owner', a)).toBe('allow');
  });

  it('lets a read-write grantee read and write, and nothing that only the owner decides', () => {
    expect(ACTIONS.filter((a) => decide('write', a) === 'allow')).toEqual(['read', 'write']);
    for (const a of ['label', 'delete', 'merge', 'grant'] as const) expect(decide('write', a)).toBe('forbidden');
  });

  it('lets a read grantee read only', () => {
    expect(ACTIONS.filter((a) => decide('read', a) === 'allow')).toEqual(['read']);
  });

  it('answers an account with no standing exactly as a missing entity, unless the entity is published and it only reads', () => {
    for (const a of ACTIONS) expect(decide(null, a)).toBe('not_found');
    expect(decide(null, 'read', { published: true })).toBe('allow');
    for (const a of ACTIONS.filter((x) => x !== 'read')) expect(decide(null, a, { published: true })).toBe('forbidden');
  });

  it('ranks the needs routes ask for: read < write < owner', () => {
    const table = (['owner', 'write', 'read', null] as Standing[]).map((s) => [
      decideNeed(s, 'read'),
      decideNeed(s, 'write'),
      decideNeed(s, 'owner'),
    ]);
    expect(table).toEqual([
      ['allow', 'allow', 'allow'],
      ['allow', 'allow', 'forbidden'],
      ['allow', 'forbidden', 'forbidden'],
      ['not_found', 'not_found', 'not_found'],
    ]);
  });
});
