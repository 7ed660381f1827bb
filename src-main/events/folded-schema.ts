/** The order of a node's outcomes: promotion.ts's (time, run, round, kind, invocation). */
export const ORDER = 'ts, run_id, round, kind, scope';

/** The host's promotion tables (promotion-store.ts says what each holds); history schema 4. */
export const PROMOTION_SCHEMA = `
CREATE TABLE IF NOT EXISTS promotion_runs (run_id TEXT PRIMARY KEY, workflow_id TEXT NOT NULL, facts TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS promotion_rounds (id TEXT PRIMARY KEY, run_id TEXT NOT NULL, facts TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS promotion_rounds_run ON promotion_rounds (run_id);
CREATE TABLE IF NOT EXISTS promotion_outcomes (
  id TEXT PRIMARY KEY,
  workflow_id TEXT NOT NULL,
  node TEXT NOT NULL,
  ts TEXT NOT NULL,
  run_id TEXT NOT NULL,
  round INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('review', 'shadow')),
  scope TEXT NOT NULL,
  agreed INTEGER NOT NULL,
  blocked INTEGER NOT NULL,
  protected_error INTEGER NOT NULL,
  rank INTEGER NOT NULL DEFAULT 0,
  reviews_through INTEGER NOT NULL DEFAULT 0,
  agreed_through INTEGER NOT NULL DEFAULT 0,
  blocked_through INTEGER NOT NULL DEFAULT 0,
  errors_through INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS promotion_order ON promotion_outcomes (workflow_id, node, ${ORDER});
CREATE INDEX IF NOT EXISTS promotion_rank ON promotion_outcomes (workflow_id, node, rank);
CREATE INDEX IF NOT EXISTS promotion_outcomes_run ON promotion_outcomes (run_id);
CREATE TABLE IF NOT EXISTS promotion_subjects (workflow_id TEXT NOT NULL, node TEXT NOT NULL, stale_from TEXT, PRIMARY KEY (workflow_id, node)) WITHOUT ROWID;
`;

/**
 * The host's learning examples (learning-store.ts): one row per `learning.example` event of a run that
 * is not a dry run, with what the Learning list filters and orders by; the example itself is its event.
 * `spec_id` '': the run's workflow is not known yet; `verdict` '': none.
 */
export const LEARNING_SCHEMA = `
CREATE TABLE IF NOT EXISTS learning_examples (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  spec_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  ts TEXT NOT NULL,
  verdict TEXT NOT NULL,
  agreed INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS learning_time ON learning_examples (ts, id);
CREATE INDEX IF NOT EXISTS learning_spec ON learning_examples (spec_id, ts, id);
CREATE INDEX IF NOT EXISTS learning_kind ON learning_examples (kind, ts, id);
CREATE INDEX IF NOT EXISTS learning_run ON learning_examples (run_id, seq);
`;

/** Tables folded from the events when asked (history-fold.ts): history schema 4. */
export const FOLDED_SCHEMA = `${PROMOTION_SCHEMA}${LEARNING_SCHEMA}`;
