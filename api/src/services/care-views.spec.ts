import { describe, expect, it, vi } from 'vitest';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { CareRow } from '../../../shared/src/repos/care-log.repo.js';
import type { ResolvedEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import type { Caller } from '../http/route.js';
import { careEntryView, createCareTimeline, type CareTimelineDeps } from './care-views.js';

const db = strictMock<Queryable>({}, 'db');
const OWNER = '11111111-1111-4111-8111-111111111111';
const HELPER = '22222222-2222-4222-8222-222222222222';
const TREE = '33333333-3333-4333-8333-333333333333';
const tree: ResolvedEntity = { entity_type: 'tree', entity_id: TREE, owner_id: OWNER, farm_id: 'vuon' };
const caller = (id: string): Caller => ({ account_id: id, username: 'u', is_admin: false, token_hash: 'h' });
const at = new Date('2026-11-20T07:00:00Z');
const row = (over: Partial<CareRow>): CareRow => ({
  id: 'c1',
  author_id: OWNER,
  owner_id: OWNER,
  target_type: 'tree',
  target_id: TREE,
  action: 'phun',
  product_id: null,
  product_name: 'Lindane 10%',
  dose: '1 l',
  note: 'hàng 3',
  photo_cid: 'bafyphoto',
  applied_at: at,
  withdrawal: null,
  withdrawal_until: null,
  banned: [{ id: 'lindane', name: 'Lindane', severity: 'banned' }],
  created_at: at,
  deleted_at: null,
  deletion_event_id: null,
  ...over,
});

const timeline = (entries: Partial<CareTimelineDeps['entries']>, standing: 'owner' | 'read' | null) =>
  createCareTimeline({
    db,
    entries: strictMock<CareTimelineDeps['entries']>(entries, 'care log repo'),
    standingFor: vi.fn(async () => standing),
  });

describe('care entries on a timeline', () => {
  it('shows nothing, without reading the log, to a caller with no standing, to nobody signed in, and on a farm', async () => {
    const none = timeline({}, null);
    expect(await none(tree, caller(HELPER))).toEqual([]);
    expect(await timeline({}, 'owner')(tree, null)).toEqual([]);
    expect(await timeline({}, 'owner')({ ...tree, entity_type: 'farm' }, caller(OWNER))).toEqual([]);
  });

  it('shows a grantee each entry as an inherited care event, a contributor’s marked as such', async () => {
    const all = vi.fn(async () => [row({}), row({ id: 'c2', author_id: HELPER, banned: null })]);
    const events = await timeline({ all }, 'read')(tree, caller(HELPER));
    expect(all).toHaveBeenCalledWith(db, 'tree', TREE);
    expect(events[0]).toEqual({
      event_id: 'c1',
      body: {
        type: 'care',
        action: 'phun',
        product_id: null,
        product_name: 'Lindane 10%',
        dose: '1 l',
        applied_at: at.toISOString(),
        withdrawal_until: null,
        photo_cid: 'bafyphoto',
        banned: ['Lindane'],
      },
      author_role: 'owner',
      created_at: at.toISOString(),
      visibility: 'private',
      approval: 'approved',
      inherited_from: { entity_type: 'care', entity_id: 'c1' },
    });
    expect(events[1]).toMatchObject({ author_role: 'contributor', body: { banned: [] } });
  });

  it('shows a deleted entry only as its deletion event, with none of its old fields', async () => {
    const gone = new Date('2026-11-21T07:00:00Z');
    const deleted = row({ deleted_at: gone, deletion_event_id: 'd1', note: null, product_name: null, photo_cid: null });
    const [event] = await timeline({ all: async () => [deleted] }, 'owner')(tree, caller(OWNER));
    expect(event).toEqual(
      expect.objectContaining({ event_id: 'd1', created_at: gone.toISOString(), body: { type: 'care_deleted', care_id: 'c1' } }),
    );
  });
});

describe('a care entry in the care log', () => {
  it('keeps the note and dates as ISO text and reads missing banned hits as none', () => {
    expect(careEntryView(row({ banned: null, withdrawal_until: at }))).toMatchObject({
      note: 'hàng 3',
      applied_at: at.toISOString(),
      withdrawal_until: at.toISOString(),
      banned: [],
      author_role: 'owner',
    });
  });
});
