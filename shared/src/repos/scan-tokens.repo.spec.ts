import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BOTH_DATABASES, openDatabase } from '../../../test/support/both-databases.js';
import { scopeOfJob } from '../access/owner-scope.js';
import { scanTokensRepo as repo } from './scan-tokens.repo.js';

describe.each(BOTH_DATABASES)('scan tokens on $name', ({ open }) => {
  const [owner, other] = [randomUUID(), randomUUID()];
  const [mine, theirs] = [scopeOfJob({ owner_id: owner }), scopeOfJob({ owner_id: other })];
  const inMinutes = (m: number) => new Date(Date.now() + m * 60_000);
  const token = (hash: string, scope = mine, expiresAt = inMinutes(10)) =>
    repo.insert(db(), scope, { hash, speciesGuess: 'durian', topK: ['durian', 'Xoài'], expiresAt });

  const opened = openDatabase(open, async (db) => {
    await db.query(`insert into accounts (id, username) values ($1, 'owner'), ($2, 'other')`, [owner, other]);
    const tree = (species: string | null, kind = 'tree', deleted = false, ownerId = owner) =>
      db.query(`insert into individuals (id, owner_id, kind, species, deleted_at) values ($1, $2, $3, $4, $5)`, [
        randomUUID(),
        ownerId,
        kind,
        species,
        deleted ? new Date() : null,
      ]);
    for (const s of ['durian', 'durian', 'mango', 'Xoài', 'Xoài', ' ', null]) await tree(s);
    await tree('mango', 'fruit');
    await tree('mango', 'tree', true);
    await tree('pomelo', 'tree', false, other);
  });
  const db = () => opened.db;

  it('counts the species on the owner’s live trees, most first, blank ones and fruit, deleted and others’ trees left out', async () => {
    expect(await repo.ownTreeSpecies(db(), mine)).toEqual([
      { species: 'Xoài', n: 2 },
      { species: 'durian', n: 2 },
      { species: 'mango', n: 1 },
    ]);
  });

  it('stores a token by hash and offers its species to its owner only while live', async () => {
    await token('h1');
    expect(await repo.liveOffer(db(), 'h1', mine)).toEqual(['durian', 'Xoài']);
    expect(await repo.liveOffer(db(), 'h1', theirs)).toBeNull();
    expect(await repo.liveOffer(db(), 'nope', mine)).toBeNull();
    const r = await db().query<{ species_guess: string }>('select species_guess from scan_tokens where hash = $1', ['h1']);
    expect(r.rows).toEqual([{ species_guess: 'durian' }]);
  });

  it('consumes a live token once; an expired or foreign one is never consumed', async () => {
    await token('h2');
    await token('h3', mine, inMinutes(-1));
    expect(await repo.consume(db(), 'h2', theirs)).toBe(false);
    expect(await repo.consume(db(), 'h2', mine)).toBe(true);
    expect(await repo.consume(db(), 'h2', mine)).toBe(false);
    expect(await repo.liveOffer(db(), 'h2', mine)).toBeNull();
    expect(await repo.liveOffer(db(), 'h3', mine)).toBeNull();
    expect(await repo.consume(db(), 'h3', mine)).toBe(false);
  });

  it('sweeps only the owner’s tokens expired more than a day ago', async () => {
    await token('old', mine, inMinutes(-25 * 60));
    await token('recent', mine, inMinutes(-60));
    await token('theirs', theirs, inMinutes(-25 * 60));
    await repo.sweepExpired(db(), mine);
    const r = await db().query<{ hash: string }>(`select hash from scan_tokens where hash in ('old', 'recent', 'theirs') order by hash`);
    expect(r.rows.map((x) => x.hash)).toEqual(['recent', 'theirs']);
  });
});
