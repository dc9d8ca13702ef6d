import { describe, expect, it } from 'vitest';
import { operatorOf, scopeChosenByOperator, scopeOfCaller, scopeOfIndividualOwner, scopeOfJob } from './owner-scope.js';

describe('owner scope', () => {
  it('is the caller’s account, as the token resolved it', () => {
    const scope = scopeOfCaller({ account_id: 'acc-1', token_hash: 'h' });
    expect(scope.ownerId).toBe('acc-1');
  });

  it('is a queued job’s owner, as the API wrote it', () => {
    expect(scopeOfJob({ owner_id: 'acc-2' }).ownerId).toBe('acc-2');
  });

  it('is a stored individual’s owner, for the farm its timeline inherits care from', () => {
    expect(scopeOfIndividualOwner({ owner_id: 'acc-3', entity_type: 'tree' }).ownerId).toBe('acc-3');
    expect(() => scopeOfIndividualOwner({ owner_id: '', entity_type: 'tree' })).toThrow(TypeError);
  });

  it('names the same account equally whichever way it was made', () => {
    expect(scopeOfCaller({ account_id: 'acc-1', token_hash: 'h' })).toEqual(scopeOfJob({ owner_id: 'acc-1' }));
  });

  it('cannot be changed to name another account once made', () => {
    const scope = scopeOfJob({ owner_id: 'acc-1' });
    expect(Object.isFrozen(scope)).toBe(true);
    expect(() => {
      (scope as { ownerId: string }).ownerId = 'acc-2';
    }).toThrow(TypeError);
    expect(scope.ownerId).toBe('acc-1');
  });

  it('refuses an empty account id, which would quietly match no row', () => {
    expect(() => scopeOfCaller({ account_id: '', token_hash: 'h' })).toThrow(TypeError);
    expect(() => scopeOfJob({ owner_id: '' })).toThrow(TypeError);
  });

  it('lets an operator, and only an administrator is one, choose one owner or every owner', () => {
    expect(() => operatorOf({ account_id: 'acc-1', is_admin: false, token_hash: 'h' })).toThrow(TypeError);
    const operator = operatorOf({ account_id: 'admin-1', is_admin: true, token_hash: 'h' });
    expect(Object.isFrozen(operator)).toBe(true);
    expect(scopeChosenByOperator(operator, 'acc-2')).toEqual(scopeOfJob({ owner_id: 'acc-2' }));
    expect(scopeChosenByOperator(operator, null).ownerId).toBeNull();
    expect(() => scopeChosenByOperator(operator, '')).toThrow(TypeError);
  });
});
