/**
 * Undo/redo over whole-document snapshots (documents are small; snapshots cannot drift from the
 * edits that made them). Edits with the same `group` in a row (typing in one field, say) merge
 * into one step, so an undo takes back a word, not a letter.
 */
export interface History<T> {
  past: readonly T[];
  present: T;
  future: readonly T[];
  /** The group of the last commit; a commit with the same group replaces the present step. */
  group?: string;
}

const LIMIT = 200;

export function startHistory<T>(present: T): History<T> {
  return { past: [], present, future: [] };
}

export function commit<T>(h: History<T>, next: T, group?: string): History<T> {
  if (next === h.present) return h;
  if (group !== undefined && group === h.group) return { ...h, present: next, future: [] };
  return { past: [...h.past, h.present].slice(-LIMIT), present: next, future: [], group };
}

export function undo<T>(h: History<T>): History<T> {
  const prev = h.past.at(-1);
  if (prev === undefined) return h;
  return { past: h.past.slice(0, -1), present: prev, future: [h.present, ...h.future] };
}

export function redo<T>(h: History<T>): History<T> {
  const [next, ...rest] = h.future;
  if (next === undefined) return h;
  return { past: [...h.past, h.present], present: next, future: rest };
}
