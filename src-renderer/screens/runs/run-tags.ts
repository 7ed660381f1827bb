import type { RunRow } from '../../db/db';

/**
 * The short facts after a run's name in a run list, the same on the Runs page and on a workflow's
 * Recent runs. The phase is the lifecycle's, said so: an SCS run has phases of its own.
 */
export function runTags(run: Pick<RunRow, 'supervision_enabled' | 'dry_run' | 'phase' | 'imported'>): string[] {
  return [
    // It never ran here: it came from a trace file (as steward runs list says it).
    ...(run.imported ? ['imported'] : []),
    ...(run.supervision_enabled ? [] : ['unsupervised']),
    ...(run.dry_run ? ['dry run'] : []),
    // Unsupervised, the phase was not used: no teacher reviewed anything.
    ...(run.phase !== undefined && run.supervision_enabled ? [`lifecycle phase ${run.phase}`] : []),
  ];
}
