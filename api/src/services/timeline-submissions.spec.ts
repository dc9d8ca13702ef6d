import { describe, expect, it, vi } from 'vitest';
import type { Queryable } from '../../../shared/src/ports/database.port.js';
import type { StoredEvent } from '../../../shared/src/repos/evidence/chain-store.js';
import type { ResolvedEntity } from '../../../shared/src/repos/evidence/entity-owner.js';
import type { SubmissionRow } from '../../../shared/src/repos/timeline-submissions.repo.js';
import { strictMock } from '../../../test/support/strict-mock.js';
import {
  checkEventBody,
  CONTRIBUTION_KEY,
  createSubmissions,
  EVENT_BODY_MAX_BYTES,
  SUBMISSIONS_PER_AUTHOR_PER_DAY,
  type SubmissionsDeps,
} from './timeline-submissions.js';

type Repo = SubmissionsDeps['submissions'];
const tx = strictMock<Queryable>({}, 'tx');
const OWNER = '11111111-1111-4111-8111-111111111111';
const AUTHOR = '22222222-2222-4222-8222-222222222222';
const TREE = '33333333-3333-4333-8333-333333333333';
const entity: ResolvedEntity = { entity_type: 'tree', entity_id: TREE, owner_id: OWNER, farm_id: null };
const quota = { maxEvents: 3, maxBytes: 1000 };
const at = new Date('2026-11-28T08:00:00Z');
const row = (over: Partial<SubmissionRow> = {}): SubmissionRow => ({
  id: '44444444-4444-4444-8444-444444444444',
  entity_type: 'tree',
  entity_id: TREE,
  author_id: AUTHOR,
  body: { note: 'sâu đục thân' },
  created_at: at,
  ...over,
});
const noAppend = strictMock<{ appendChainEvent: SubmissionsDeps['appendChainEvent'] }>({}, 'chain').appendChainEvent;
const build = (submissions: Partial<Repo>, appendChainEvent = noAppend) =>
  createSubmissions({ submissions: strictMock<Repo>(submissions, 'submissions repo'), appendChainEvent, quota });

describe('event bodies', () => {
  it('refuses a body over the size cap, and one carrying the reserved contribution key, with 422', () => {
    expect(() => checkEventBody({ note: 'x'.repeat(EVENT_BODY_MAX_BYTES) })).toThrow(
      expect.objectContaining({ status: 422, code: 'event_too_large' }),
    );
    expect(() => checkEventBody({ [CONTRIBUTION_KEY]: { author_id: OWNER } })).toThrow(
      expect.objectContaining({ status: 422, code: 'event_reserved_key' }),
    );
    expect(() => checkEventBody({ note: 'ok' })).not.toThrow();
  });
});

describe('submitting', () => {
  it('locks the entity, checks both quotas, then stores the event as pending under the owner, as the path named it', async () => {
    const lockEntity = vi.fn(async () => {});
    const insert = vi.fn(async () => row());
    const s = build({
      lockEntity,
      recentByAuthor: async () => ({ count: SUBMISSIONS_PER_AUTHOR_PER_DAY - 1, oldest: at }),
      pendingLoad: async () => ({ count: quota.maxEvents - 1, bytes: 0 }),
      insert,
    });
    const view = await s.submit(tx, entity, AUTHOR, { note: 'sâu đục thân' }, TREE.toUpperCase());
    expect(lockEntity).toHaveBeenCalledWith(tx, 'tree', TREE);
    expect(insert).toHaveBeenCalledWith(tx, {
      entity_type: 'tree',
      entity_id: TREE,
      owner_id: OWNER,
      author_id: AUTHOR,
      body: { note: 'sâu đục thân' },
    });
    expect(view).toEqual({
      event_id: row().id,
      entity_type: 'tree',
      entity_id: TREE.toUpperCase(),
      body: { note: 'sâu đục thân' },
      author_role: 'contributor',
      created_at: at.toISOString(),
      visibility: 'private',
      approval: 'pending',
    });
  });

  it('answers 429 with Retry-After once the author sent the day’s count, writing nothing', async () => {
    const oldest = new Date(Date.now() - 86_400_000 + 120_000);
    const s = build({ lockEntity: async () => {}, recentByAuthor: async () => ({ count: SUBMISSIONS_PER_AUTHOR_PER_DAY, oldest }) });
    const err = await s.submit(tx, entity, AUTHOR, { note: 'x' }, TREE).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429, code: 'event_quota_exceeded' });
    const retry = Number((err as { headers: Record<string, string> }).headers['Retry-After']);
    expect(retry).toBeGreaterThan(100);
    expect(retry).toBeLessThanOrEqual(120);
  });

  it('answers 429 when all authors together would pass the entity’s count or bytes, writing nothing', async () => {
    const recentByAuthor = async () => ({ count: 0, oldest: null });
    const full = build({ lockEntity: async () => {}, recentByAuthor, pendingLoad: async () => ({ count: quota.maxEvents, bytes: 0 }) });
    await expect(full.submit(tx, entity, AUTHOR, { note: 'x' }, TREE)).rejects.toMatchObject({
      status: 429,
      code: 'event_entity_quota_exceeded',
      headers: { 'Retry-After': '3600' },
    });
    const heavy = build({ lockEntity: async () => {}, recentByAuthor, pendingLoad: async () => ({ count: 0, bytes: quota.maxBytes - 5 }) });
    await expect(heavy.submit(tx, entity, AUTHOR, { note: 'x' }, TREE)).rejects.toMatchObject({ code: 'event_entity_quota_exceeded' });
  });
});

describe('who sees pending submissions', () => {
  it('shows the owner every pending submission, an author only their own, and nobody signed out anything', async () => {
    const pending = vi.fn(async () => [row()]);
    const s = build({ pending });
    expect(await s.pendingFor(tx, entity, null, TREE)).toEqual([]);
    expect(pending).not.toHaveBeenCalled();
    await s.pendingFor(tx, entity, OWNER, TREE);
    expect(pending).toHaveBeenLastCalledWith(tx, 'tree', TREE, undefined);
    expect((await s.pendingFor(tx, entity, AUTHOR, TREE)).map((v) => v.event_id)).toEqual([row().id]);
    expect(pending).toHaveBeenLastCalledWith(tx, 'tree', TREE, AUTHOR);
  });
});

describe('the owner’s decision', () => {
  it('appends an approved submission to the chain by the owner’s action, naming its author and the approval in the hashed body', async () => {
    const stored = strictMock<StoredEvent>({ event_id: row().id }, 'event');
    const appendChainEvent = vi.fn(async () => stored);
    const decide = vi.fn(async () => row());
    const s = build({ decide }, appendChainEvent);
    expect(await s.decide(tx, entity, row().id, true)).toBe(stored);
    expect(decide).toHaveBeenCalledWith(tx, { id: row().id, entityType: 'tree', entityId: TREE, status: 'approved' });
    expect(appendChainEvent).toHaveBeenCalledWith(
      tx,
      expect.objectContaining({
        id: row().id,
        owner_id: OWNER,
        author_id: AUTHOR,
        author_role: 'contributor',
        approved: true,
        body: {
          note: 'sâu đục thân',
          [CONTRIBUTION_KEY]: { author_id: AUTHOR, submitted_at: at.toISOString(), approved_by: OWNER, approved_at: expect.any(String) },
        },
      }),
    );
  });

  it('marks a rejected submission without touching the chain, and answers null when nothing pending has that id', async () => {
    const decide = vi.fn(async () => row());
    expect(await build({ decide }).decide(tx, entity, row().id, false)).toBe('rejected');
    expect(decide).toHaveBeenCalledWith(tx, expect.objectContaining({ status: 'rejected' }));
    expect(await build({ decide: async () => null }).decide(tx, entity, row().id, true)).toBeNull();
  });
});
