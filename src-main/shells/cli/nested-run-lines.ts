import { childRunsCount } from '@shared/history/run-summary';
import type { ListedRun } from '../../events/history-queries';
import { runLine, shortId } from './format-history';

/**
 * `steward runs list|search` lines with child runs nested (issue 29): a child run (a workflow a run
 * ran) is listed under its parent when the page holds both, indented, its id shown as the parent's
 * start and its own part (`3f2a1b9c…:sum`); a parent says how many child runs it has; a child whose
 * parent is not on the page says whose part it is.
 */
export function nestedRunLines(runs: readonly ListedRun[]): string[] {
  const onPage = new Set(runs.map((listed) => listed.run.run_id));
  const childrenOf = new Map<string, ListedRun[]>();
  for (const listed of runs) {
    const parent = listed.run.parent?.run_id;
    if (parent !== undefined && onPage.has(parent)) childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), listed]);
  }
  const lines: string[] = [];
  const visit = (listed: ListedRun, depth: number): void => {
    const { run } = listed;
    const line = runLine(listed);
    const count = childRunsCount(run);
    const children = count.count > 0 ? ` · ${count.count}${count.more ? '+' : ''} child ${count.count === 1 && !count.more ? 'run' : 'runs'}` : '';
    const parent = run.parent;
    if (depth === 0) {
      const partOf = parent ? ` · part of run ${shortId(parent.run_id)} (node ${parent.invocation_id})` : '';
      lines.push(`${line}${children}${partOf}`);
    } else {
      const own = parent && run.run_id.startsWith(parent.run_id) ? `${shortId(parent.run_id)}…${run.run_id.slice(parent.run_id.length)}` : run.run_id;
      lines.push(`${'  '.repeat(depth)}↳ ${own}${line.slice(shortId(run.run_id).length)}${children}`);
    }
    for (const child of childrenOf.get(run.run_id) ?? []) visit(child, depth + 1);
  };
  for (const listed of runs) {
    const parent = listed.run.parent?.run_id;
    if (parent === undefined || !onPage.has(parent)) visit(listed, 0);
  }
  return lines;
}
