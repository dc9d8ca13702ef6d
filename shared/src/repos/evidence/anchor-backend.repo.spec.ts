import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../../test/support/both-databases.js';
import {
  GENESIS_CHECKPOINT_HASH,
  checkpointHash,
  generateCheckpointKey,
  signCheckpoint,
  verifyCheckpointLog,
  type SignedCheckpoint,
} from '../../evidence/checkpoint.js';
import type { Database, Queryable } from '../../ports/database.port.js';
import { anchorBackendRepo as repo } from './anchor-backend.repo.js';

describe.each(BOTH_DATABASES)('anchor backend statements on $name', ({ name, open }) => {
  const opened = openDatabase(open);
  const key = generateCheckpointKey();

  /** Signs the checkpoint after `prev` (the genesis one when there is none). */
  const next = (prev: SignedCheckpoint | undefined, i: number) =>
    signCheckpoint(
      {
        log_id: 'test-log',
        seq: prev ? prev.seq + 1 : 0,
        entity: `tree/t${i}`,
        size: i + 1,
        root_hex: String(i % 10).repeat(64),
        prev_checkpoint_hash: prev ? checkpointHash(prev) : GENESIS_CHECKPOINT_HASH,
        created_at: new Date(Date.UTC(2026, 10, 1, 0, 0, i)),
      },
      key.privateKey,
    );

  it('stores checkpoints and reads them back: the newest one’s seq and hash, and the whole log in order', async () => {
    const { db } = opened;
    expect(await repo.lastCheckpoint(db)).toBeUndefined();
    expect(await repo.allCheckpoints(db)).toEqual([]);
    const written: SignedCheckpoint[] = [];
    for (let i = 0; i < 3; i++) {
      const cp = next(written.at(-1), i);
      await db.transaction(async (tx) => {
        await repo.lockCheckpointLog(tx);
        await repo.insertCheckpoint(tx, cp, 'test-log', checkpointHash(cp));
      });
      written.push(cp);
      expect(await repo.lastCheckpoint(db)).toEqual({ seq: i, hash: checkpointHash(cp) });
    }
    const log = await repo.allCheckpoints(db);
    expect(log).toEqual(JSON.parse(JSON.stringify(written)));
    expect(verifyCheckpointLog(log, key.did)).toEqual({ ok: true });
    const stored = await db.query<{ seq: number; log_id: string }>('select seq, log_id from checkpoint_log order by seq');
    expect(stored.rows).toEqual([0, 1, 2].map((seq) => ({ seq, log_id: 'test-log' })));
  });

  it('refuses a second checkpoint at a seq already taken', async () => {
    const { db } = opened;
    const last = (await repo.allCheckpoints(db)).at(-1);
    const dup = { ...next(last, 7), seq: last!.seq };
    await expect(repo.insertCheckpoint(db, dup, 'test-log', checkpointHash(dup))).rejects.toThrow();
    expect((await repo.lastCheckpoint(db))!.seq).toBe(last!.seq);
  });

  it('answers the UTxOs held by Cardano anchors still pending or submitted, and no others', async () => {
    const { db } = opened;
    expect(await repo.inFlightInputs(db)).toEqual(new Set());
    const anchor = (backend: string, status: string, inputs: string[] | null) =>
      db.query(
        `insert into anchors (id, entity_type, entity_id, size, root_hex, backend, status, owner_id, inputs)
         values ($1, 'tree', $2, 1, 'ab', $3, $4, $5, $6::jsonb)`,
        [randomUUID(), randomUUID(), backend, status, randomUUID(), inputs ? JSON.stringify(inputs) : null],
      );
    await anchor('cardano', 'pending', ['aa#0', 'aa#1']);
    await anchor('cardano', 'submitted', ['bb#2']);
    await anchor('cardano', 'submitted', null);
    await anchor('cardano', 'confirmed', ['cc#0']);
    await anchor('cardano', 'failed', ['dd#0']);
    await anchor('local', 'pending', ['ee#0']);
    expect(await repo.inFlightInputs(db)).toEqual(new Set(['aa#0', 'aa#1', 'bb#2']));
  });

  /**
   * Whether a second transaction taking `lock` waits for a first one holding `held` to end.
   * Only PostgreSQL has a second connection to try from while the first transaction is open.
   */
  async function waitsFor(db: Database, held: (tx: Queryable) => Promise<void>, lock: (tx: Queryable) => Promise<void>) {
    const order: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let taken!: () => void;
    const isTaken = new Promise<void>((r) => (taken = r));
    const first = db.transaction(async (tx) => {
      await held(tx);
      taken();
      await released;
      order.push('first ends');
    });
    await isTaken;
    const second = db.transaction(async (tx) => {
      await lock(tx);
      order.push('second locked');
    });
    await new Promise((r) => setTimeout(r, 300));
    release();
    await Promise.all([first, second]);
    return order[0] === 'first ends';
  }

  it.runIf(name === 'PostgreSQL')('holds the checkpoint log’s lock and a wallet’s lock until the transaction ends', async () => {
    const { db } = opened;
    expect(await waitsFor(db, repo.lockCheckpointLog, repo.lockCheckpointLog)).toBe(true);
    expect(
      await waitsFor(
        db,
        (tx) => repo.lockWallet(tx, 'addr_a'),
        (tx) => repo.lockWallet(tx, 'addr_a'),
      ),
    ).toBe(true);
    // Another wallet, or the log, is not held by a wallet's lock.
    expect(
      await waitsFor(
        db,
        (tx) => repo.lockWallet(tx, 'addr_a'),
        (tx) => repo.lockWallet(tx, 'addr_b'),
      ),
    ).toBe(false);
    expect(await waitsFor(db, (tx) => repo.lockWallet(tx, 'addr_a'), repo.lockCheckpointLog)).toBe(false);
  });

  it('takes both locks inside a transaction without error', async () => {
    const { db } = opened;
    await db.transaction(async (tx) => {
      await repo.lockCheckpointLog(tx);
      await repo.lockWallet(tx, 'addr_a');
      await repo.lockWallet(tx, 'addr_a');
    });
  });
});
