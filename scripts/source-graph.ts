/**
 * The project's own import graph and source text, read from disk, for the architecture checks
 * (architecture.spec.ts). Only relative imports are edges: npm packages and node builtins are
 * not part of our layering.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');
const SKIP = new Set(['node_modules', 'dist', 'data', '.git', 'test-artifacts']);
const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]/g;

/** Source files (not specs, not declarations) under `dirs`, as paths relative to the root. */
export function sourceFiles(dirs: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (SKIP.has(name)) continue;
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts')) out.push(path.relative(ROOT, p));
    }
  };
  for (const d of dirs) if (existsSync(path.join(ROOT, d))) walk(path.join(ROOT, d));
  return out.sort();
}

export const readSource = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

/** Each file's relative imports, resolved to root-relative `.ts` paths that exist. */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const deps = new Set<string>();
    for (const m of readSource(f).matchAll(IMPORT)) {
      let target = path.join(path.dirname(f), m[1]!).replace(/\.js$/, '.ts');
      if (!target.endsWith('.ts')) target += '.ts';
      if (existsSync(path.join(ROOT, target))) deps.add(target);
    }
    graph.set(f, [...deps]);
  }
  return graph;
}

/** Strongly connected components of more than one file (Tarjan): every import circle. */
export function importCycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) cycles.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/**
 * SQL written in a file: a query called with literal text, or a statement's opening words.
 * Files that only pass SQL through (the database proxies between threads) call `.query` with a
 * variable and do not count.
 */
export const SQL_TEXT =
  /\.query\s*(?:<[^>]*>)?\s*\(\s*[`'"]|\b(?:select\s[\s\S]{0,400}?\sfrom\s+[a-z_]+\b|insert\s+into\s+[a-z_]+\b|update\s+[a-z_]+\s+set\s|delete\s+from\s+[a-z_]+\b)/i;
