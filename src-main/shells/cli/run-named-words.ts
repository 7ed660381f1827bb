import { MIN_RUN_ID_START, type RunNamed } from '../../events/run-named-by';

/** Why a typed run id named no run: where it was looked for, and a start too short to name one. */
export function noRunWords(typed: string, where: string, short: boolean): string {
  return `no run "${typed}" in ${where}${short ? ` (a run id's start must be at least ${MIN_RUN_ID_START} characters long to name it)` : ''}`;
}

/** A start several runs' ids share: each of them on a line (described by `line`), to give more of the one meant. */
export function ambiguousWords(typed: string, named: Extract<RunNamed, { kind: 'ambiguous' }>, line: (runId: string) => string = (runId) => runId): string {
  return `"${typed}" is the start of ${named.more ? 'more than ' : ''}${named.runIds.length} runs' ids; give more of the one you mean:\n${named.runIds.map((id) => `  ${line(id)}`).join('\n')}`;
}
