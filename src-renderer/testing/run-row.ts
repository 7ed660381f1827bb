import type { RunRow } from '../db/db';

/** A completed run's summary row as the Runs screen keeps it, started `minute` minutes into 2026 (tests' runs, in order). */
export function runRow(run_id: string, workflow_id: string, minute: number, overrides: Partial<RunRow> = {}): RunRow {
  return {
    run_id,
    workflow_id,
    spec_name: workflow_id,
    status: 'completed',
    started_at: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString(),
    rounds: 1,
    models: { student: 'replay', teacher: 'replay' },
    supervision_enabled: true,
    stored_events: 0,
    ...overrides,
  };
}
