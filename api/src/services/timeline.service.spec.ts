import { describe, expect, it, vi } from 'vitest';
import { EvidenceFormatError } from '../../../shared/src/evidence/bytes.js';
import { appendEvent, type ChainEvent } from '../../../shared/src/evidence/chain.js';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import { toAnchorView, type AnchorRow } from '../../../shared/src/repos/evidence/anchor-store.js';
import type { StoredEvent } from '../../../shared/src/repos/evidence/chain-store.js';
import type { ResolvedEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { Caller } from '../http/route.js';
import { createTimelineService, type TimelineDeps } from './timeline.service.js';
import type { SubmissionView } from './timeline-submissions.js';

const OWNER = '11111111-1111-4111-8111-111111111111';
const READER = '22222222-2222-4222-8222-222222222222';
const TREE = '33333333-3333-4333-8333-333333333333';
const EVENT = '44444444-4444-4444-8444-444444444444';
/** The id of the chain's event at seq `i`. */
const idAt = (i: number) => (i === 0 ? EVENT : `5555555${i}-5555-4555-8555-555555555555`);
const caller = (id: string): Caller => ({ account_id: id, username: 'u', is_admin: false, token_hash: 'h' });
const tree: ResolvedEntity = { entity_type: 'tree', entity_id: TREE, owner_id: OWNER, farm_id: 'vuon' };
const tx = strictMock<Queryable>({}, 'tx');

/** A chain of `n` events the owner wrote, stored. */
function chainOf(n: number, over: Partial<StoredEvent> = {}): StoredEvent[] {
  const out: ChainEvent[] = [];
  for (let i = 0; i < n; i++)
    out.push(appendEvent(out, { entity_type: 'tree', entity_id: TREE, body: { i }, created_at: new Date(Date.UTC(2026, 10, 1 + i)) }));
  return out.map((e, i) => ({
    ...e,
    event_id: idAt(i),
    owner_id: OWNER,
    author_id: OWNER,
    visibility: 'public',
    approval: 'approved',
    ...over,
  }));
}

/** A database whose transactions run on `tx` (commit and rollback are the adapters', tested there). */
const transaction = vi.fn(async (fn: (t: Queryable) => Promise<unknown>) => fn(tx));
const none = <F>(name: string) => strictMock<{ f: F }>({}, name).f;

function service(over: Partial<TimelineDeps> = {}) {
  return createTimelineService({
    db: strictMock<TimelineDeps['db']>({ transaction: transaction as never }, 'db'),
    readable: vi.fn(async (_t, id: string) => (id === TREE ? tree : null)),
    owned: vi.fn(async (_t, id: string, c: Caller) => (id === TREE && c.account_id === OWNER ? tree : null)),
    resolveEntity: none('entities'),
    loadChain: none('chain'),
    loadFarmCare: none('farm care'),
    appendChainEvent: none('append'),
    submissions: strictMock<TimelineDeps['submissions']>({}, 'submissions'),
    legacy: strictMock<TimelineDeps['legacy']>({}, 'legacy'),
    careEvents: none('care'),
    anchors: strictMock<TimelineDeps['anchors']>({}, 'anchors'),
    ...over,
  });
}

describe('timeline: posting an event', () => {
  it('refuses an entity the caller cannot read with 403 before looking at the body', async () => {
    await expect(service().post(caller(READER), 'tree', 'elsewhere', { note: '\u0000' })).rejects.toMatchObject({
      status: 403,
      code: 'entity_no_owner',
    });
  });

  it('validates the body before any transaction: unstorable text, the size cap and the reserved key are 422', async () => {
    const s = service({ db: strictMock<TimelineDeps['db']>({}, 'db') });
    for (const body of [{ note: 'a\u0000b' }, { note: 'x'.repeat(17 * 1024) }, { _contribution: {} }])
      await expect(s.post(caller(OWNER), 'tree', TREE, body)).rejects.toMatchObject({ status: 422 });
  });

  it('appends the owner’s event to the chain as the owner, and leaves a reader’s as a pending submission', async () => {
    const [stored] = chainOf(1);
    const appendChainEvent = vi.fn(async () => stored!);
    const pending = { event_id: 'p1', approval: 'pending' } as SubmissionView;
    const submit = vi.fn(async () => pending);
    const s = service({ appendChainEvent, submissions: strictMock<TimelineDeps['submissions']>({ submit }) });
    const own = await s.post(caller(OWNER), 'tree', TREE, { note: 'tưới' });
    expect(appendChainEvent).toHaveBeenCalledWith(tx, {
      entity_type: 'tree',
      entity_id: TREE,
      owner_id: OWNER,
      author_id: OWNER,
      author_role: 'owner',
      body: { note: 'tưới' },
    });
    expect(own.event).toMatchObject({ event_id: EVENT, seq: 0 });
    expect(await s.post(caller(READER), 'tree', TREE, { note: 'sâu' })).toEqual({ ok: true, event: pending });
    expect(submit).toHaveBeenCalledWith(tx, tree, READER, { note: 'sâu' }, TREE);
    expect(appendChainEvent).toHaveBeenCalledTimes(1);
  });

  it('answers a body the chain cannot encode as 422 on body', async () => {
    const s = service({
      appendChainEvent: async () => {
        throw new EvidenceFormatError('body holds a float');
      },
    });
    await expect(s.post(caller(OWNER), 'tree', TREE, { x: 1.5 })).rejects.toMatchObject({ status: 422, params: { field: 'body' } });
  });
});

describe('timeline: reading', () => {
  it('answers an unreadable entity as 404', async () => {
    await expect(service().timeline(null, 'tree', 'elsewhere')).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('merges the chain the reader may see, their pending events, farm care and care log by time; the size is the owner’s', async () => {
    const chain = [
      ...chainOf(2),
      ...chainOf(3)
        .slice(2)
        .map((e) => ({ ...e, visibility: 'private' as const, approval: 'pending' as const })),
    ];
    const farm: ResolvedEntity = { entity_type: 'farm', entity_id: `${OWNER}/vuon`, owner_id: OWNER, farm_id: null };
    const farmCare = { ...chainOf(1)[0]!, event_id: 'f1', entity_type: 'farm', created_at: '2026-11-01T12:00:00.000Z' } as StoredEvent;
    const resolveEntity = vi.fn(async () => farm);
    const pendingFor = vi.fn(async () => [{ event_id: 'p1', created_at: '2026-11-05T00:00:00.000Z' } as SubmissionView]);
    const careEvents = vi.fn(async () => [{ event_id: 'c1', created_at: '2026-10-01T00:00:00.000Z' }]) as never;
    const s = service({
      loadChain: async () => chain,
      resolveEntity,
      loadFarmCare: async () => [farmCare],
      submissions: strictMock<TimelineDeps['submissions']>({ pendingFor }),
      careEvents,
    });
    const seen = await s.timeline(caller(READER), 'tree', TREE);
    expect(seen.events.map((e) => e.event_id)).toEqual(['c1', EVENT, 'f1', idAt(1), 'p1']);
    expect(seen).toMatchObject({ chain_ok: true });
    expect(seen).not.toHaveProperty('size');
    // The farm is looked up in its owner's scope (the tree's owner), never the reader's.
    expect(resolveEntity).toHaveBeenCalledWith(expect.anything(), 'farm', 'vuon', { owner: { ownerId: OWNER } });
    const owner = await s.timeline(caller(OWNER), 'tree', TREE);
    expect(owner).toMatchObject({ size: 3, chain_ok: true });
    expect(owner.events.map((e) => e.event_id)).toContain(idAt(2));
  });

  it('tells the owner where a tampered chain breaks', async () => {
    const chain = chainOf(3);
    chain[1] = { ...chain[1]!, body: { i: 'changed' } };
    const s = service({
      loadChain: async () => chain,
      resolveEntity: async () => null,
      submissions: strictMock<TimelineDeps['submissions']>({ pendingFor: async () => [] }),
      careEvents: (async () => []) as never,
    });
    expect(await s.timeline(caller(OWNER), 'tree', TREE)).toMatchObject({ chain_ok: false, broken_at: 1 });
  });
});

describe('timeline: the owner’s decisions', () => {
  it('answers another’s entity, a missing one and a malformed event id with one 404 and no transaction', async () => {
    const s = service({ db: strictMock<TimelineDeps['db']>({}, 'db') });
    const theirs = await s.approve(caller(READER), 'tree', TREE, EVENT).catch((e: unknown) => e);
    const missing = await s.approve(caller(OWNER), 'tree', 'elsewhere', EVENT).catch((e: unknown) => e);
    const malformed = await s.reject(caller(OWNER), 'tree', TREE, 'e1').catch((e: unknown) => e);
    expect(theirs).toMatchObject({ status: 404, code: 'not_found' });
    expect(missing).toEqual(theirs);
    expect(malformed).toEqual(theirs);
  });

  it('approves a pending submission into the chain, else a legacy chained one, else 404', async () => {
    const [stored] = chainOf(1);
    const decide = vi.fn(async () => stored!);
    const approved = await service({ submissions: strictMock<TimelineDeps['submissions']>({ decide }) }).approve(
      caller(OWNER),
      'tree',
      TREE,
      EVENT.toUpperCase(),
    );
    expect(decide).toHaveBeenCalledWith(tx, tree, EVENT, true);
    expect(approved.event).toMatchObject({ event_id: EVENT });
    const approveChained = vi.fn(async () => true);
    const legacy = service({
      submissions: strictMock<TimelineDeps['submissions']>({ decide: async () => null }),
      legacy: strictMock<TimelineDeps['legacy']>({ approveChained }),
      loadChain: async () => chainOf(1),
    });
    expect((await legacy.approve(caller(OWNER), 'tree', TREE, EVENT)).event).toMatchObject({ event_id: EVENT });
    expect(approveChained).toHaveBeenCalledWith(expect.anything(), EVENT, 'tree', TREE);
    const nothing = service({
      submissions: strictMock<TimelineDeps['submissions']>({ decide: async () => null }),
      legacy: strictMock<TimelineDeps['legacy']>({ approveChained: async () => false }),
    });
    await expect(nothing.approve(caller(OWNER), 'tree', TREE, EVENT)).rejects.toMatchObject({ status: 404 });
  });

  it('rejects only a pending submission', async () => {
    const rejecting = service({ submissions: strictMock<TimelineDeps['submissions']>({ decide: async () => 'rejected' as const }) });
    expect(await rejecting.reject(caller(OWNER), 'tree', TREE, EVENT)).toEqual({ ok: true, event_id: EVENT, rejected: true });
    const none = service({ submissions: strictMock<TimelineDeps['submissions']>({ decide: async () => null }) });
    await expect(none.reject(caller(OWNER), 'tree', TREE, EVENT)).rejects.toMatchObject({ status: 404 });
  });
});

describe('timeline: proofs', () => {
  const anchorRow = (status: string) =>
    ({
      id: 'a1',
      backend: 'local',
      status,
      size: 3,
      root_hex: 'ab',
      confirmations: 0,
      created_at: new Date(),
      updated_at: new Date(),
    }) as AnchorRow;

  it('gives a reader the proof at the current size without n, index or the anchored size; a failed anchor as none', async () => {
    const current = vi.fn(async () => ({ row: anchorRow('confirmed'), view: toAnchorView(anchorRow('confirmed')) }));
    const s = service({ loadChain: async () => chainOf(3), anchors: strictMock<TimelineDeps['anchors']>({ current }) });
    const p = await s.proof(caller(READER), 'tree', TREE, EVENT, 1);
    expect(current).toHaveBeenCalledWith('tree', TREE, 3);
    expect(p).not.toHaveProperty('n');
    expect(p.anchor).toMatchObject({ status: 'confirmed', size: undefined });
    const failed = service({
      loadChain: async () => chainOf(3),
      anchors: strictMock<TimelineDeps['anchors']>({
        current: async () => ({ row: anchorRow('failed'), view: toAnchorView(anchorRow('failed')) }),
      }),
    });
    expect((await failed.proof(caller(OWNER), 'tree', TREE, EVENT, 2)).anchor).toBeNull();
  });

  it('answers an event the reader may not see as 404, and an owner’s size that does not hold the event as 422', async () => {
    const s = service({ loadChain: async () => chainOf(2, { visibility: 'private', approval: 'pending', author_id: OWNER }) });
    await expect(s.proof(caller(READER), 'tree', TREE, EVENT)).rejects.toMatchObject({ status: 404 });
    await expect(service({ loadChain: async () => chainOf(2) }).proof(caller(OWNER), 'tree', TREE, idAt(1), 1)).rejects.toMatchObject({
      status: 422,
    });
  });

  it('gives consistency proofs to the owner only, within the chain', async () => {
    const s = service({ loadChain: async () => chainOf(3) });
    expect(await s.consistency(caller(OWNER), 'tree', TREE, 1)).toMatchObject({ first: 1, second: 3 });
    await expect(s.consistency(caller(OWNER), 'tree', TREE, 4)).rejects.toMatchObject({ status: 422 });
    await expect(s.consistency(caller(READER), 'tree', TREE, 1)).rejects.toMatchObject({ status: 404 });
  });
});
