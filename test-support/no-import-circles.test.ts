import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No import circles in the product's code (type-only imports count: a circle of types is still a
 * circle a reader has to untangle). Imports are read with TypeScript's own pre-processor, resolved as
 * the tsconfigs do (relative paths and the `@shared/*` alias); a circle is a strongly connected
 * component of more than one file (Tarjan).
 */
const ROOT = resolve(__dirname, '..');
const LAYERS = ['src-shared', 'src-main', 'src-renderer'];

function sourceFiles(dir: string, into: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, into);
    else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts')) into.push(path);
  }
  return into;
}

function importGraph(): Map<string, string[]> {
  const files = LAYERS.flatMap((layer) => sourceFiles(join(ROOT, layer)));
  const known = new Set(files);
  const resolveImport = (from: string, spec: string): string | undefined => {
    const base = spec.startsWith('@shared/') ? join(ROOT, 'src-shared', spec.slice('@shared/'.length)) : spec.startsWith('.') ? resolve(dirname(from), spec) : undefined;
    if (base === undefined) return undefined;
    return [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx'), base].find((candidate) => known.has(candidate));
  };
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    graph.set(file, [...new Set(importedFiles.map((f) => resolveImport(file, f.fileName)).filter((f): f is string => f !== undefined))]);
  }
  return graph;
}

function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(relative(ROOT, w));
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('the import graph', () => {
  it('has no circles in src-shared, src-main or src-renderer', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(500);
    expect(circles(graph)).toEqual([]);
  });

  it('finds a circle when there is one (the check itself works)', () => {
    const graph = new Map([
      ['/a.ts', ['/b.ts']],
      ['/b.ts', ['/c.ts']],
      ['/c.ts', ['/a.ts']],
      ['/d.ts', ['/a.ts']],
    ]);
    expect(circles(graph)).toHaveLength(1);
    expect(circles(graph)[0]).toHaveLength(3);
  });
});
