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
