import type { JournalRunFacts } from './event-journal';

const DAY_MS = 86_400_000;

/**
 * Which runs are past the retention their trace profile recorded on them (run.started.retention):
 * `days`: finished more than that many days ago; `runs`: at least that many newer runs of the same
 * workflow (spec id) exist, whatever their state. A run still open (running, waiting: no
 * run.finished) or in `keep` is never chosen. A child run (one a workflow node or an agent's
 * workflow tool started) is never chosen nor counted on its own: its parent's retention decides, and
 * the host removes a parent with its children (RunHistory.applyRetention), so a run never outlives
 * or loses the runs it links to. Pure: the host applies it at start-up and after a run finishes.
 */
export function runsPastRetention(runs: readonly JournalRunFacts[], now: number, keep: ReadonlySet<string>): string[] {
  if (!runs.some((run) => run.retention && run.parent_run_id === undefined)) return [];
  const bySpec = new Map<string, JournalRunFacts[]>();
  for (const run of runs) {
    if (run.spec_id === undefined || run.parent_run_id !== undefined) continue;
    bySpec.set(run.spec_id, [...(bySpec.get(run.spec_id) ?? []), run]);
  }
  // Per run: how many runs of its workflow started after it (newest first; ties by id, so the order is total).
  const newer = new Map<string, number>();
  for (const group of bySpec.values()) {
    group.sort((a, b) => (a.started_at === b.started_at ? b.run_id.localeCompare(a.run_id) : a.started_at < b.started_at ? 1 : -1));
    group.forEach((run, i) => newer.set(run.run_id, i));
  }
  const out: string[] = [];
  for (const run of runs) {
    const { retention } = run;
    if (!retention || run.finished_at === undefined || keep.has(run.run_id) || run.parent_run_id !== undefined) continue;
    const finished = Date.parse(run.finished_at);
    const tooOld = retention.days !== undefined && Number.isFinite(finished) && now - finished > retention.days * DAY_MS;
    const tooMany = retention.runs !== undefined && (newer.get(run.run_id) ?? 0) >= retention.runs;
    if (tooOld || tooMany) out.push(run.run_id);
  }
  return out;
}
