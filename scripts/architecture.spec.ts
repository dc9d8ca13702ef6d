import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, readSource, ROOT, sourceFiles, SQL_TEXT } from './source-graph.js';

/**
 * The layering the code is written to (docs/architecture.md, ../shared/design/style.md), read
 * from the import graph itself, so a change that breaks it fails `npm test` instead of waiting for
 * a reviewer.
 */
const files = sourceFiles(['api', 'shared', 'workers', 'web/src']);
const graph = importGraph(files);

/** [files under `from`, that must not import anything under `banned`, except files under `except`]. */
const LAYERS: { from: string; banned: string[]; except?: string[]; why: string }[] = [
  { from: 'shared/', banned: ['api/', 'workers/', 'web/'], why: 'shared code serves both processes and depends on neither' },
  { from: 'api/', banned: ['workers/', 'web/'], why: 'the API never runs recognition itself: it queues jobs' },
  { from: 'web/src/', banned: ['api/', 'workers/', 'shared/'], why: 'the app is built on its own and talks HTTP' },
  {
    from: 'shared/src/evidence/',
    banned: ['shared/src/ports/', 'shared/src/adapters/', 'shared/src/repos/', 'shared/src/container', 'shared/src/db/'],
    why: 'the evidence library is pure (formats, hashing, proofs, the verifier); its storage lives in repositories',
  },
  {
    from: 'shared/src/domain/',
    banned: ['shared/src/ports/', 'shared/src/adapters/', 'shared/src/repos/', 'shared/src/container'],
    why: 'domain rules are pure',
  },
  {
    from: 'shared/src/ports/',
    banned: ['shared/src/adapters/', 'shared/src/repos/', 'shared/src/container'],
    except: ['shared/src/ports/conformance/'],
    why: 'a port names what it needs, never who provides it (the conformance suites drive adapters on purpose)',
  },
  { from: 'api/src/http/', banned: ['api/src/services/', 'api/src/routes/'], why: 'the HTTP plumbing sits below routes and services' },
  {
    from: 'workers/src/vision/',
    banned: ['workers/src/handlers/', 'workers/src/learn/', 'workers/src/recognition/'],
    why: 'vision describes and compares photos; it knows nothing of owners, jobs or training',
  },
  {
    from: 'workers/src/recognition/',
    banned: ['workers/src/handlers/', 'workers/src/learn/'],
    why: 'recognition serves answers; jobs and the learning loop call it, not the reverse',
  },
];

describe('architecture', () => {
  it('reads the source tree', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(graph.get('api/src/routes/animal.route.ts')).toContain('api/src/routes/animal.schemas.ts');
  });

  it('has no import circles', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  for (const layer of LAYERS) {
    it(`${layer.from} imports nothing from ${layer.banned.join(', ')}: ${layer.why}`, () => {
      const crossings = [...graph]
        .filter(([f]) => f.startsWith(layer.from) && !(layer.except ?? []).some((e) => f.startsWith(e)))
        .flatMap(([f, deps]) =>
          deps.filter((d) => !d.startsWith(layer.from) && layer.banned.some((b) => d.startsWith(b))).map((d) => `${f} -> ${d}`),
        );
      expect(crossings).toEqual([]);
    });
  }

  it('writes SQL only in repositories (and the migrations, transaction control and the port conformance suite)', () => {
    // The PostgreSQL adapter begins, commits and rolls back transactions and checks its connection:
    // the port's own work, not a statement about any table. The conformance suite drives the port
    // with SQL on a table of its own.
    const allowed = (f: string) =>
      ['shared/src/repos/', 'shared/src/adapters/db/postgres.adapter.ts', 'shared/src/ports/conformance/'].some((d) => f.startsWith(d));
    const withSql = sourceFiles(['api', 'shared', 'workers']).filter((f) => !allowed(f) && SQL_TEXT.test(readSource(f)));
    expect(withSql, 'SQL outside shared/src/repos/: move it into a repository').toEqual([]);
  });

  it('recognises SQL text and ignores a query passed through', () => {
    expect(SQL_TEXT.test('await db.query(`select id from individuals where owner_id = $1`)')).toBe(true);
    expect(SQL_TEXT.test("tx.query<{ n: number }>('delete from images where id = $1')")).toBe(true);
    expect(SQL_TEXT.test('return on.query(m.sql!, m.params);')).toBe(false);
  });

  it('makes an OwnerScope and a SearchPool only in shared/src/access/: their brands are private and nothing else casts to them', () => {
    // Account records (surveys, fruit batches, herd counts and alerts, farms) are picked by the
    // scope a repository is given; a scope made any other way than from the caller's token or a
    // job the API queued would let a caller name another account's records.
    for (const file of ['shared/src/access/owner-scope.ts', 'shared/src/access/pool-owners.ts']) {
      const scopeModule = readSource(file);
      expect(scopeModule).toMatch(/^declare const brand: unique symbol;$/m);
      expect(scopeModule, `the brand symbol must stay private to ${file}`).not.toMatch(
        /export\s+(declare\s+)?const\s+brand\b|export\s*\{[^}]*\bbrand\b/,
      );
    }
    // Specs, benchmarks and scripts too: a test that forges a scope tests a path production cannot take.
    const everyTs = (dir: string): string[] =>
      readdirSync(path.join(ROOT, dir)).flatMap((name) => {
        if (['node_modules', 'dist', 'data', '.git', 'test-artifacts'].includes(name)) return [];
        const p = path.join(dir, name);
        return statSync(path.join(ROOT, p)).isDirectory() ? everyTs(p) : name.endsWith('.ts') ? [p] : [];
      });
    const cast =
      /\bas\s+((OwnerScope|OperatorCaller|EveryOwner|SearchPool)\b|ReturnType<typeof\s+(scopeOf|operatorOf|poolOwners|ownPool))|(?<![\w$.])<(OwnerScope|SearchPool)>\s*[({\w[]/;
    const forging = ['api', 'shared', 'workers', 'benchmarks', 'test', 'scripts', 'web/src']
      .flatMap((d) => everyTs(d))
      .filter((f) => !f.startsWith('shared/src/access/') && cast.test(readSource(f)));
    expect(forging, 'build an OwnerScope with scopeOfCaller or scopeOfJob (shared/src/access/owner-scope.ts)').toEqual([]);
    // The samples name the type through a variable, so this file's own text holds no cast.
    const type = 'OwnerScope';
    expect(cast.test(`const s = { ownerId: id } as ${type};`)).toBe(true);
    expect(cast.test(`const s = { ownerId: id } as unknown as ${type};`)).toBe(true);
    expect(cast.test(`const s = <${type}>{ ownerId: id };`)).toBe(true);
    expect(cast.test('repo.own(db, id, scopeOfCaller(caller))')).toBe(false);
    expect(cast.test(`function own(): Promise<${type}> {`)).toBe(false);
    expect(cast.test(`const op = { account_id: id } as ${'Operator'}Caller;`)).toBe(true);
    // A search pool: matching crosses accounts only through the grants poolOwners reads.
    expect(cast.test(`const pool = [mine, theirs] as ${'Search'}Pool;`)).toBe(true);
    expect(cast.test(`const pool = <${'Search'}Pool>[mine, theirs];`)).toBe(true);
    expect(cast.test('const pool = await poolOwners(db, scope, kind);')).toBe(false);
    // The operator's proof is made by the router's admin check alone (specs may make one to test with).
    const callsOperatorOf = /(?<![\w$.])operatorOf\s*\(/;
    const makers = ['api', 'shared', 'workers', 'benchmarks', 'test', 'scripts', 'web/src']
      .flatMap((d) => everyTs(d))
      .filter((f) => f !== 'shared/src/access/owner-scope.ts' && !f.endsWith('.spec.ts') && callsOperatorOf.test(readSource(f)));
    expect(makers, 'an OperatorCaller comes from the admin check in api/src/http/router.ts only').toEqual(['api/src/http/router.ts']);
  });
});
