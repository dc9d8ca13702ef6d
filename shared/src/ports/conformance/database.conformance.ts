import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../adapters/db/migrate.js';
import type { Database } from '../database.port.js';

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../db/migrations');

/** One place where a database keeps its data: a PGlite folder, or one database on a server. */
export interface DatabaseStore {
  /** Open a new handle on the store, as a starting process would. */
  open(): Promise<Database>;
  /** Remove the store and its data. Every handle must be closed first. */
  destroy(): Promise<void>;
}

/** What the conformance suite needs from an adapter. */
export interface DatabaseAdapterFactory {
  /** A new, empty store. */
  createStore(): Promise<DatabaseStore>;
  /**
   * Whether several handles may be open on one store at once (a server: several processes).
   * An embedded folder allows one handle only, so concurrency is tested within that handle.
   */
  sharedAccess: boolean;
}

interface Item {
  id: number;
  name: string;
  doc: unknown;
  at: Date;
  n: number | bigint | null;
}

/**
 * The behaviour every `Database` adapter must share, so services can write SQL once and run it
 * in both modes. Call inside a `describe` for one adapter.
 */
export function databaseConformance(factory: DatabaseAdapterFactory): void {
  let store: DatabaseStore;
  let db: Database;
  const opened: Database[] = [];
  const open = async (s: DatabaseStore) => {
    const h = await s.open();
    opened.push(h);
    return h;
  };
  let seq = 0;
  const uniq = (p: string) => `${p}-${process.pid}-${++seq}`;

  // The first migration of the fresh store is the concurrency test: several runs at once, from
  // two handles where the store allows it. Settled, so a failure is reported by that test alone.
  let firstRuns: PromiseSettledResult<string[]>[] = [];

  beforeAll(async () => {
    store = await factory.createStore();
    db = await open(store);
    const other = factory.sharedAccess ? await open(store) : db;
    firstRuns = await Promise.allSettled([migrate(db), migrate(other), migrate(db)]);
    if (other !== db) await other.close();
    await migrate(db);
    await db.exec(`
      create table conf_items (
        id bigserial primary key,
        name text not null unique,
        doc jsonb,
        at timestamptz not null default now(),
        n int8
      );
      create table conf_log (id serial primary key, note text not null);
    `);
  });

  afterAll(async () => {
    for (const h of opened) await h.close().catch(() => undefined);
    await store?.destroy();
  });

  describe('queries', () => {
    it('binds $n parameters as values, never as SQL', async () => {
      const evil = `x'); drop table conf_items; --`;
      const ins = await db.query<Item>('insert into conf_items (name, n) values ($1, $2) returning *', [evil, 7]);
      expect(ins.rows).toHaveLength(1);
      const sel = await db.query<Item>('select name, n from conf_items where name = $1 and n = $2', [evil, 7]);
      expect(sel.rows).toEqual([{ name: evil, n: 7 }]);
      const same = await db.query<{ a: string; b: string }>('select $1::text as a, $1::text as b', ['twice']);
      expect(same.rows[0]).toEqual({ a: 'twice', b: 'twice' });
      const nul = await db.query<{ v: string | null }>('select $1::text as v', [null]);
      expect(nul.rows[0]?.v).toBeNull();
    });

    it('reports affectedRows for insert, update and delete', async () => {
      const tag = uniq('aff');
      const ins = await db.query(`insert into conf_items (name) select $1 || '-' || g from generate_series(1, 3) g`, [tag]);
      expect(ins.affectedRows).toBe(3);
      const upd = await db.query('update conf_items set n = 1 where name like $1', [`${tag}-%`]);
      expect(upd.affectedRows).toBe(3);
      const none = await db.query('update conf_items set n = 2 where name = $1', [`${tag}-missing`]);
      expect(none.affectedRows).toBe(0);
      const del = await db.query('delete from conf_items where name in ($1, $2)', [`${tag}-1`, `${tag}-2`]);
      expect(del.affectedRows).toBe(2);
    });

    it('runs a multi-statement script with exec', async () => {
      const note = uniq('exec');
      await db.exec(`insert into conf_log (note) values ('${note}'); insert into conf_log (note) values ('${note}');`);
      const r = await db.query<{ c: number }>('select count(*) as c from conf_log where note = $1', [note]);
      expect(r.rows[0]?.c).toBe(2);
    });
  });

  describe('transactions', () => {
    it('commits when the callback resolves and returns its value', async () => {
      const name = uniq('commit');
      const out = await db.transaction(async (tx) => {
        await tx.query('insert into conf_items (name) values ($1)', [name]);
        const r = await tx.query<{ id: number }>('select id from conf_items where name = $1', [name]);
        return r.rows[0]!.id;
      });
      const after = await db.query<{ id: number }>('select id from conf_items where name = $1', [name]);
      expect(after.rows).toEqual([{ id: out }]);
    });

    it('rolls everything back when the callback throws, and rethrows that error', async () => {
      const a = uniq('rb');
      const b = uniq('rb');
      const boom = new Error('boom');
      await expect(
        db.transaction(async (tx) => {
          await tx.query('insert into conf_items (name) values ($1)', [a]);
          await tx.query('update conf_items set n = 99 where name = $1', [a]);
          await tx.query('insert into conf_items (name) values ($1)', [b]);
          throw boom;
        }),
      ).rejects.toBe(boom);
      const r = await db.query('select 1 from conf_items where name in ($1, $2)', [a, b]);
      expect(r.rows).toHaveLength(0);
    });

    it('rolls back earlier statements when a later statement fails, and stays usable', async () => {
      const first = uniq('rb-sql');
      const taken = uniq('taken');
      await db.query('insert into conf_items (name) values ($1)', [taken]);
      await expect(
        db.transaction(async (tx) => {
          await tx.query('insert into conf_items (name) values ($1)', [first]);
          await tx.query('insert into conf_items (name) values ($1)', [taken]);
        }),
      ).rejects.toMatchObject({ code: '23505' });
      expect((await db.query('select 1 from conf_items where name = $1', [first])).rows).toHaveLength(0);
      // The handle is not left inside the aborted transaction.
      const next = uniq('after');
      await db.transaction((tx) => tx.query('insert into conf_items (name) values ($1)', [next]));
      expect((await db.query('select 1 from conf_items where name = $1', [next])).rows).toHaveLength(1);
    });

    it('keeps concurrent transactions apart, each committing its own rows', async () => {
      const tag = uniq('par');
      const ids = await Promise.all(
        [0, 1, 2, 3, 4].map((i) =>
          db
            .transaction(async (tx) => {
              const r = await tx.query<{ id: number }>('insert into conf_items (name) values ($1) returning id', [`${tag}-${i}`]);
              await tx.query('update conf_items set n = $2 where id = $1', [r.rows[0]!.id, i]);
              if (i === 2) throw new Error('only this one fails');
              return r.rows[0]!.id;
            })
            .catch(() => null),
        ),
      );
      expect(ids.filter((x) => x === null)).toHaveLength(1);
      const r = await db.query<{ name: string; n: number }>('select name, n from conf_items where name like $1 order by n', [`${tag}-%`]);
      expect(r.rows).toEqual([0, 1, 3, 4].map((i) => ({ name: `${tag}-${i}`, n: i })));
    });
  });

  describe('types', () => {
    it('round-trips jsonb objects (nested arrays, unicode, null) and JSON text', async () => {
      const doc = { a: [1, 2.5, { b: 'cây xoài 🥭' }], t: true, f: false, z: null, e: {}, s: 'quote " and \\' };
      const name = uniq('json');
      await db.query('insert into conf_items (name, doc) values ($1, $2)', [name, doc]);
      const r = await db.query<{ doc: unknown; b: string }>(`select doc, doc->'a'->2->>'b' as b from conf_items where name = $1`, [name]);
      expect(r.rows[0]).toEqual({ doc, b: 'cây xoài 🥭' });
      // A top-level array or string must go in as JSON text (the port's documented portable form).
      const arr = await db.query<{ j: unknown }>('select $1::jsonb as j', [JSON.stringify([1, 'two', { three: 3 }])]);
      expect(arr.rows[0]?.j).toEqual([1, 'two', { three: 3 }]);
      const str = await db.query<{ j: unknown }>('select $1::jsonb as j', [JSON.stringify('plain')]);
      expect(str.rows[0]?.j).toBe('plain');
      const match = await db.query('select 1 from conf_items where doc @> $1::jsonb and name = $2', [{ t: true }, name]);
      expect(match.rows).toHaveLength(1);
    });

    it('returns timestamptz as a Date, and a Date parameter comes back to the millisecond', async () => {
      const when = new Date('2024-02-29T23:59:58.123Z');
      const name = uniq('ts');
      await db.query('insert into conf_items (name, at) values ($1, $2)', [name, when]);
      const r = await db.query<{ at: Date; now: Date; iso: Date }>(
        `select at, now() as now, $2::timestamptz as iso from conf_items where name = $1`,
        [name, '2024-03-01T07:00:00+07:00'],
      );
      const row = r.rows[0]!;
      expect(row.at).toBeInstanceOf(Date);
      expect(row.at.toISOString()).toBe(when.toISOString());
      expect(row.iso).toBeInstanceOf(Date);
      expect(row.iso.toISOString()).toBe('2024-03-01T00:00:00.000Z');
      expect(Math.abs(row.now.getTime() - Date.now())).toBeLessThan(60_000);
    });

    it('returns int8 and bigserial as numbers, and an int8 past 2^53 exactly, as a bigint', async () => {
      const tag = uniq('int8');
      const a = await db.query<Item>('insert into conf_items (name, n) values ($1, $2) returning id, n', [`${tag}-a`, 5_000_000_000]);
      const b = await db.query<Item>('insert into conf_items (name) values ($1) returning id', [`${tag}-b`]);
      const idA = a.rows[0]!.id;
      expect(typeof idA).toBe('number');
      expect(b.rows[0]!.id).toBeGreaterThan(idA);
      expect(a.rows[0]!.n).toBe(5_000_000_000);
      const c = await db.query<{ c: unknown; big: unknown }>(
        `select count(*) as c, 9007199254740993::int8 as big from conf_items where name like $1`,
        [`${tag}-%`],
      );
      expect(c.rows[0]).toEqual({ c: 2, big: 9007199254740993n });
    });

    it('round-trips bytea as a Buffer, from a Buffer or a Float32Array view', async () => {
      const vec = new Float32Array([0.25, -1.5, 3e-7, 42]);
      const bytes = Buffer.from(vec.buffer, vec.byteOffset, vec.byteLength);
      const r = await db.query<{ b: Buffer; e: Buffer; v: Buffer }>('select $1::bytea as b, $2::bytea as e, $3::bytea as v', [
        bytes,
        Buffer.alloc(0),
        new Uint8Array(vec.buffer),
      ]);
      const row = r.rows[0]!;
      expect(Buffer.isBuffer(row.b)).toBe(true);
      expect(row.b.equals(bytes)).toBe(true);
      expect(row.e.length).toBe(0);
      expect(row.v.toString('hex')).toBe(bytes.toString('hex'));
      const back = new Float32Array(row.b.buffer.slice(row.b.byteOffset, row.b.byteOffset + row.b.byteLength));
      expect(Array.from(back)).toEqual(Array.from(vec));
    });

    it("surfaces a unique violation as an error with code '23505'", async () => {
      const name = uniq('dup');
      await db.query('insert into conf_items (name) values ($1)', [name]);
      const err = await db.query('insert into conf_items (name) values ($1)', [name]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(err).toMatchObject({ code: '23505' });
    });
  });

  describe('migrations', () => {
    const expectedFiles = async () => (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();

    it('apply once: a second run applies nothing and every table exists', async () => {
      expect(await migrate(db)).toEqual([]);
      const files = await expectedFiles();
      const recorded = await db.query<{ name: string }>('select name from schema_migrations order by name');
      expect(recorded.rows.map((r) => r.name)).toEqual(files);
      for (const t of ['accounts', 'tokens', 'did_challenges', 'jobs', 'feedback', 'activity_events']) {
        const r = await db.query<{ t: string | null }>('select to_regclass($1)::text as t', [t]);
        expect(r.rows[0]?.t, t).toBe(t);
      }
    });

    it('apply concurrently without failing, each file exactly once', async () => {
      expect(firstRuns.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok']);
      const applied = firstRuns.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
      expect(applied.sort()).toEqual(await expectedFiles());
      const r = await db.query<{ c: number }>('select count(*) as c from schema_migrations');
      expect(r.rows[0]?.c).toBe((await expectedFiles()).length);
    });

    it('roll back a failing migration run as a whole, then apply once it is fixed', async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'markless-mig-'));
      const t1 = `conf_mig_${process.pid}_${++seq}`;
      const t2 = `${t1}_b`;
      try {
        await writeFile(path.join(dir, `${t1}_1.sql`), `create table ${t1} (id int primary key);\ninsert into ${t1} values (1);\n`);
        await writeFile(path.join(dir, `${t1}_2.sql`), `create table ${t2} (id int);\nselect 1 / 0;\n`);
        await expect(migrate(db, dir)).rejects.toThrow();
        const gone = await db.query<{ a: string | null; b: string | null }>(
          'select to_regclass($1)::text as a, to_regclass($2)::text as b',
          [t1, t2],
        );
        expect(gone.rows[0]).toEqual({ a: null, b: null });
        expect((await db.query('select 1 from schema_migrations where name like $1', [`${t1}%`])).rows).toHaveLength(0);
        await writeFile(path.join(dir, `${t1}_2.sql`), `create table ${t2} (id int);\n`);
        expect(await migrate(db, dir)).toEqual([`${t1}_1.sql`, `${t1}_2.sql`]);
        expect(await migrate(db, dir)).toEqual([]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe('durability', () => {
    it('keeps committed data across close and reopen', async () => {
      const name = uniq('durable');
      const doc = { kept: [1, 2, 3] };
      const ins = await db.query<Item>('insert into conf_items (name, doc, n) values ($1, $2, $3) returning id, at', [name, doc, 42]);
      await db.close();
      db = await open(store);
      expect(await migrate(db)).toEqual([]);
      const r = await db.query<Item>('select id, doc, n, at from conf_items where name = $1', [name]);
      expect(r.rows).toEqual([{ id: ins.rows[0]!.id, doc, n: 42, at: ins.rows[0]!.at }]);
    });
  });
}
