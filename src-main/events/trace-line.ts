// One reader of a trace line for the host's exports and the page's import (src-shared).
export { traceLineEvent } from '@shared/contracts/trace-line';

/** Why a trace file could not be read. */
export function traceFileProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a folder';
  if (code === 'EACCES') return 'permission denied';
  return err instanceof Error ? err.message : String(err);
}
