import type { RunRow } from '../../db/db';
// Relative, not @shared: the Playwright e2e (e2e/runs-scale.spec.ts) imports this file without the alias.
import { RUN_STATUSES } from '../../../src-shared/contracts/events';
import { runWords } from '../../../src-shared/history/search-words';

/** Deterministic runs-table rows for tests, the bench and the scale e2e: varied statuses, workflows, days and words. */
export function syntheticRuns(count: number, seed = 1): RunRow[] {
  let s = seed >>> 0 || 1;
  const next = () => {
    // xorshift32: the same rows on every machine for the same seed.
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x1_0000_0000;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
  const workflows = ['notes-cleanup', 'guarded-writes', 'folder-triage', 'release-notes', 'inbox-zero'];
  const verbs = ['Summarise', 'Tidy', 'Classify', 'Rename', 'Archive', 'Draft'];
  const things = ['meeting notes', 'invoices', 'the changelog', 'photos', 'receipts', 'Quarterly Report'];
  const start = Date.UTC(2026, 0, 1);
  return Array.from({ length: count }, (_, i): RunRow => {
    const status = pick(RUN_STATUSES);
    const workflow = pick(workflows);
    const started = new Date(start + Math.floor(next() * 300 * 86_400_000));
    const final = status !== 'running' && status !== 'waiting';
    const row: RunRow = {
      run_id: `run-${String(i).padStart(6, '0')}`,
      workflow_id: workflow,
      spec_name: workflow.replace(/-/g, ' '),
      task: `${pick(verbs)} ${pick(things)} #${i}`,
      status,
      started_at: started.toISOString(),
      ...(final ? { finished_at: new Date(started.getTime() + 60_000).toISOString() } : {}),
      rounds: Math.floor(next() * 10),
      ...(final ? { output: `${pick(['Wrote', 'Moved', 'Found'])} ${pick(things)}` } : {}),
      ...(status === 'failed' ? { message: `Model timed out after ${Math.floor(next() * 100)} s` } : {}),
      // As modelLabel writes them: replay, ollama:MODEL, HOST:MODEL for an OpenAI-compatible endpoint.
      models: { student: pick(['ollama:qwen3:4b', 'api.openai.com:gpt-5-mini', 'replay']), teacher: pick(['ollama:qwen3:14b', 'replay']) },
      supervision_enabled: next() < 0.7,
      stored_events: 10,
      event_count: 10,
    };
    // As ingest-events writes them: the e2e puts these rows straight into the page's database.
    return { ...row, words: runWords(row) };
  });
}
