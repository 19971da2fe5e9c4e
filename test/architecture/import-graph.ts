import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Every relative import and re-export of the sources (type-only ones included), file to file. */
export function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const specifier = /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+'(\.{1,2}\/[^']+)'/g;
  for (const file of globSync('src/**/*.ts', { cwd: root })) {
    const text = readFileSync(path.join(root, file), 'utf8');
    const targets = [...text.matchAll(specifier)].map((m) =>
      path.join(path.dirname(file), (m[1] as string).replace(/\.js$/, '.ts')),
    );
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected components of more than one file (or a file importing itself). */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
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
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}
