/** What opening found: a migration's counts, so the host can say what happened. */
export interface JournalLoadReport {
  events: number;
  /** Lines of a legacy journal that were not JSON or failed the schema (excluding a torn last line). */
  invalidLines: number;
  /** The legacy journal's last line was cut short (a crash mid-append) and was skipped. */
  tornTail: boolean;
}

/** A run that has emitted events but no `run.finished`: where its sequence stands. */
export interface OpenRun {
  run_id: string;
  next_seq: number;
  rounds: number;
}
