import { markWords, type ArgumentProvenance } from '@shared/boundary/provenance';

/**
 * Where a proposed call's argument values came from (issue 31), as a terminal says it: one line per
 * value copied from an earlier tool result, e.g. `path carries "/tmp/x" from fs/read_text_file in
 * round 2 (untrusted)`. Nothing when every value came from the person.
 */
export function provenanceLines(marks: readonly ArgumentProvenance[] | undefined, indent = '  '): string[] {
  if (marks === undefined || marks.length === 0) return [];
  const untrusted = marks.some((m) => m.sources.some((s) => s.trust === 'untrusted'));
  return [
    `${indent}where its values came from${untrusted ? ' (untrusted: written by someone other than you; check it is what you asked for)' : ''}:`,
    ...marks.map((m) => `${indent}  ${markWords(m)}`),
  ];
}
