import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { AgentSpec } from '@shared/contracts/spec';
import { historyPath } from '../events/history-db';
import { openHistory } from '../events/open-history';
import { openHostWrites } from '../mcp/journal-ledger';
import { localRecorder } from '../shells/cli/run-recorder';
import { askingSpecInput } from '../../test-support/asking-spec';
import { escalatingWorkflow } from '../../test-support/escalating-workflow';
import { readNotes } from '../../test-support/reading-spec';
import { walCommits } from '../../test-support/wal-commits';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { runAgent } from './run-agent';
import { RunManager } from './run-manager';
import { waitingStoresOn } from './waiting-stores';

/**
 * Issue 26, one durable write per round: a run that starts to wait stores its last events and its
 * checkpoint in one transaction (one sync), so the history never holds a checkpoint ahead of its
 * events; and a `steward run` with no app writes a round as the host does, its ledger claim
 * carrying the round's events: one commit. Counted from the write-ahead log (test-support/wal-commits.ts).
 */

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const spec = AgentSpec.parse(askingSpecInput({ phase: 3, on_escalate: 'human' }));
const escalate = { json: { verdict: 'escalate', reason_codes: ['policy_violation'], explanation: 'A person should approve what gets shared.' } };
const writeShared = (workspace: string) => ({ json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(workspace, 'shared.md'), content: 'for everyone' } } });

/** What another process (a restarted host, a steward command) reads of the data folder's history: committed rows only. */
function committed(dataDir: string) {
  const db = new Database(historyPath(dataDir), { readonly: true });
  cleanups.push(() => {
    db.close();
  });
  return {
    events: (runId: string) => (db.prepare('SELECT count(*) AS n FROM events WHERE run_id = ?').get(runId) as { n: number }).n,
    waiting: (runId: string) => db.prepare('SELECT kind FROM waiting WHERE run_id = ? AND claimed_by IS NULL').all(runId),
  };
}

/** The host's history writes on a fresh data folder (window long enough that only what must commit does), with its waiting runs. */
function hostFolder() {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const dataDir = join(ws.dir, 'data');
  const journal = openHistory(dataDir, { log: () => undefined });
  cleanups.push(() => journal.close());
  journal.connection.pragma('wal_autocheckpoint = 0');
  const { writer, ledger } = openHostWrites(journal, dataDir, { windowMs: 60_000 });
  const commits = () => walCommits(historyPath(dataDir));
  const other = committed(dataDir);
  /** Each checkpoint write: how many commits it made, and the run's events emitted and stored when it returned. */
  const writes: Array<{ commits: number; emitted: number; stored: number }> = [];
  const emitted: RunEvent[] = [];
  const stores = waitingStoresOn(
    journal.connection,
    {
      now: (step) => {
        const before = commits();
        writer.commit(step);
        const runId = emitted[0]?.run_id ?? '';
        writes.push({ commits: commits() - before, emitted: emitted.filter((e) => e.run_id === runId).length, stored: other.events(runId) });
      },
    },
    dataDir,
  );
  const manager = new RunManager({
    ledger,
    onEvent: (event) => {
      emitted.push(event);
      writer.onEvent(event);
    },
    baseDir: ws.dir,
    ...stores,
  });
  cleanups.push(() => manager.closeAll());
  return { ws, dataDir, manager, commits, other, writes, emitted };
}

describe('a run that starts to wait for a person', () => {
  it("in the host: its events and its checkpoint are one commit — the run's only one, since none of its rounds ran a tool", async () => {
    const h = hostFolder();
    const before = h.commits();
    const { run_id } = h.manager.start({ ...spec, workspace: h.ws.workspace, script: { latency_ms: 0, student: [writeShared(h.ws.workspace)], teacher: [escalate], committee: [], monitor: [] } }, {}, { allowed_hosts: [] });
    await h.manager.settled(run_id);
    expect(h.manager.pending().map((i) => i.run_id)).toEqual([run_id]);
    expect(h.commits() - before).toBe(1);
    expect(h.writes).toEqual([{ commits: 1, emitted: h.emitted.length, stored: h.emitted.length }]);
    expect(h.emitted.at(-1)?.type).toBe('intervention.requested');
    expect(h.other.waiting(run_id)).toEqual([{ kind: 'agent' }]);
  }, 30_000);

  it('in the host, a workflow run: every checkpoint write is one commit holding every event of the run before it', async () => {
    const h = hostFolder();
    const { run_id } = h.manager.startWorkflow({ graph: escalatingWorkflow(h.ws.workspace), specDir: h.ws.dir, workspace: h.ws.workspace }, { name: 'shared.md' }, { allowed_hosts: [] });
    await expect.poll(() => h.manager.pending().length, { timeout: 20_000 }).toBe(1);
    await h.manager.settled(run_id);
    expect(h.writes.length).toBeGreaterThan(0);
    for (const write of h.writes) expect(write).toEqual({ commits: 1, emitted: write.emitted, stored: write.emitted });
    expect(h.emitted.some((e) => e.type === 'intervention.requested')).toBe(true);
    expect(h.other.waiting(run_id)).toEqual([{ kind: 'workflow' }]);
  }, 30_000);

  it('in a steward run with no app: rounds that read commit nothing of their own, and the parked round with its checkpoint is one commit', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const dataDir = join(ws.dir, 'data');
    const recorder = localRecorder(dataDir, () => undefined, { windowMs: 60_000 });
    const commits = () => walCommits(historyPath(dataDir));
    const other = committed(dataDir);
    const atRound: number[] = [];
    const start = commits();
    const result = await runAgent({
      spec,
      specDir: ws.dir,
      workspace: ws.workspace,
      script: { latency_ms: 0, student: [readNotes(ws.workspace), readNotes(ws.workspace), writeShared(ws.workspace)], teacher: [escalate], committee: [], monitor: [] },
      ledger: recorder.ledger,
      onEvent: (event) => {
        if (event.type === 'tools.snapshot') atRound.push(commits());
        recorder.onEvent(event);
      },
    });
    expect(result.status).toBe('waiting');
    expect(result.executions).toHaveLength(2);
    // Rounds 1 and 2 ran a read: its claim rides in the next commit (a lost read is no repeated effect).
    expect(atRound.map((n) => n - start)).toEqual([0, 0, 0]);
    expect(commits() - start).toBe(0);
    // Nothing of the parked round is durable yet; then its events and the checkpoint are, in one commit.
    expect(other.waiting(result.run_id)).toEqual([]);
    expect(await recorder.finish(result.checkpoint)).toEqual({ ok: true });
    expect(commits() - start).toBe(1);
    expect(other.waiting(result.run_id)).toEqual([{ kind: 'agent' }]);
    const stored = other.events(result.run_id);
    const journal = openHistory(dataDir, { log: () => undefined });
    const events = journal.runEvents(result.run_id);
    journal.close();
    expect(stored).toBe(events.length);
    expect(events.at(-1)?.type).toBe('intervention.requested');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  }, 30_000);
});
