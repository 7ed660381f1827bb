/** A listed run as far as nesting goes: its id, and the run that ran it (issue 29), if any. */
interface Nestable {
  run_id: string;
  parent?: { run_id: string };
}

/**
 * The rows of a list with each child run right under its parent (its whole subtree, in the order
 * the children were listed), when the parent is in the list too; everything else keeps its place.
 * Newest first lists a child above the parent that started it; a person reads a child under it.
 * A child whose parent is not listed (another page, filtered out) stays where it was.
 */
export function childrenUnderParents<T extends Nestable>(rows: readonly T[]): T[] {
  const listed = new Set(rows.map((r) => r.run_id));
  const children = new Map<string, T[]>();
  const roots: T[] = [];
  for (const row of rows) {
    const parent = row.parent?.run_id;
    // A row naming itself (damaged data) is a root: nesting never loses a row.
    if (parent !== undefined && parent !== row.run_id && listed.has(parent)) {
      const siblings = children.get(parent);
      if (siblings) siblings.push(row);
      else children.set(parent, [row]);
    } else roots.push(row);
  }
  const out: T[] = [];
  const placed = new Set<string>();
  const place = (row: T): void => {
    // A cycle of parents (damaged data) is broken at the first row seen again.
    if (placed.has(row.run_id)) return;
    placed.add(row.run_id);
    out.push(row);
    for (const child of children.get(row.run_id) ?? []) place(child);
  };
  for (const root of roots) place(root);
  // Rows only reachable through a cycle: listed where they were, after the rest.
  for (const row of rows) if (!placed.has(row.run_id)) place(row);
  return out;
}
