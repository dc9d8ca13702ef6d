import { describe, expect, it } from 'vitest';
import { ownedBy } from './owned.js';
import { scopeOfCaller, scopeOfJob } from './owner-scope.js';

const tree = { entity_type: 'tree', entity_id: 'e1', owner_id: 'acct-a', farm_id: null } as const;

describe('owner-only acts on a resolved entity', () => {
  it("gives the owner its entity, the same object, whether the scope came from a token or a job's payload", () => {
    expect(ownedBy(tree, scopeOfCaller({ account_id: 'acct-a', token_hash: 'h' }))).toBe(tree);
    expect(ownedBy(tree, scopeOfJob({ owner_id: 'acct-a' }))).toBe(tree);
  });

  it('gives another account exactly what a missing entity gives', () => {
    const other = scopeOfJob({ owner_id: 'acct-b' });
    expect(ownedBy(tree, other)).toBeNull();
    expect(ownedBy(null, other)).toBeNull();
    expect(ownedBy(undefined, other)).toBeNull();
  });

  it('compares the owner id whole: a prefix or a differently cased id is another account', () => {
    expect(ownedBy(tree, scopeOfJob({ owner_id: 'acct-' }))).toBeNull();
    expect(ownedBy(tree, scopeOfJob({ owner_id: 'ACCT-A' }))).toBeNull();
  });
});
