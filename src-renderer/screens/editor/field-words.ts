/**
 * What is wrong with a field, in words, beside the field (issue 22: "Name is required", not the
 * schema's text). The rules are the document schema's own (document.ts: ids are slugs of at most
 * 64, names at most 120 characters); saying them here lets the field speak while it is typed.
 */

const ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** `taken`: the ids of the node's siblings (a node's Id is unique in its workflow). */
export function idIssue(id: string, taken: Iterable<string> = []): string | undefined {
  if (id === '') return 'Id is required';
  if (id.length > 64) return 'Id is at most 64 characters';
  if (/[A-Z]/.test(id) && ID.test(id.toLowerCase())) return 'Id uses lowercase letters only';
  if (!ID.test(id)) return /^[-_]/.test(id) ? 'Id starts with a letter or a digit' : 'Id may use letters, digits, - and _ (no spaces)';
  for (const t of taken) if (t === id) return `Another node already has the Id “${id}”`;
  return undefined;
}

export function nameIssue(name: string, { required, max = 120 }: { required: boolean; max?: number }): string | undefined {
  if (required && name === '') return 'Name is required';
  if (name.length > max) return `Name is at most ${max} characters`;
  return undefined;
}

/** The problems left to list above the fields once the fields said theirs (the same words, any case). */
export function notSaidByFields(problems: readonly string[], said: ReadonlyArray<string | undefined>): string[] {
  const words = new Set(said.flatMap((s) => (s === undefined ? [] : [s.toLowerCase()])));
  return problems.filter((p) => !words.has(p.toLowerCase()));
}
