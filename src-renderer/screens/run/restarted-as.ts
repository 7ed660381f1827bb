import type { RunRow } from '../../db/db';

type ChildRow = Pick<RunRow, 'run_id' | 'parent'>;

/** The child runs its parent started after `run`, in the order they started (the parent's row keeps them). */
export function laterChildren(run: ChildRow, parent: Pick<RunRow, 'children'> | undefined): string[] {
  const children = parent?.children ?? [];
  const at = children.indexOf(run.run_id);
  return at < 0 ? [] : children.slice(at + 1);
}

/**
 * The run that took over from a child run a stop cut off: the next child its parent started at the same node
 * invocation (a supervisor's retry is an invocation of its own). Read from the rows' parents, never from the ids' text.
 */
export function restartedAs(run: ChildRow, later: readonly (ChildRow | undefined)[]): string | undefined {
  const invocation = run.parent?.invocation_id;
  if (invocation === undefined) return undefined;
  return later.find((row) => row?.parent?.run_id === run.parent?.run_id && row?.parent?.invocation_id === invocation)?.run_id;
}
