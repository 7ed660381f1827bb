import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, type RunEventOf } from '@shared/contracts/events';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { LOCAL, settings, VERDICTS } from '@shared/supervisor/testing/fixtures';
import { ScriptedSupervisorDouble } from '@shared/supervisor/testing/scripted-supervisor';
import { WorkflowGraph } from '@shared/workflow/document';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { createMemoryLedger, type IdempotencyLedger, type LedgerBeginMeta, type LedgerOutcome } from '../../mcp/idempotency-ledger';
import { runWorkflow } from '../run-workflow';
import { WorkflowCheckpoint } from '../workflow-checkpoint';
import type { WorkflowSupervisionOptions } from './workflow-supervision';

/**
 * A host stop during a supervisor's retry of a read tool node (issue 11): the resumed run goes on
 * with that attempt and its own idempotency key, never the failed attempt's. Real scheduler, real MCP
 * filesystem server, a real (in-memory) idempotency ledger; the scripted supervisor double stands at
 * the model boundary.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

type LedgerCall = { op: 'begin'; key: string; meta: LedgerBeginMeta } | { op: 'finish'; key: string; outcome: LedgerOutcome };

/** The ledger as the host keeps it on disk: every begin and finish in order, so a stop can be cut at any moment. */
class RecordingLedger implements IdempotencyLedger {
  readonly calls: LedgerCall[] = [];
  constructor(
    private readonly inner: IdempotencyLedger = createMemoryLedger(),
    private readonly onBegin: (meta: LedgerBeginMeta) => void = () => undefined,
  ) {}
  state(key: string) {
    return this.inner.state(key);
  }
  begin(key: string, meta: LedgerBeginMeta): void {
    this.inner.begin(key, meta);
    this.calls.push({ op: 'begin', key, meta });
    this.onBegin(meta);
  }
  finish(key: string, outcome: LedgerOutcome): void {
    this.inner.finish(key, outcome);
    this.calls.push({ op: 'finish', key, outcome });
  }
  /** The ledger as it stood after its first `n` records (what the disk held when the host stopped). */
  static upTo(calls: readonly LedgerCall[], n: number): RecordingLedger {
    const ledger = new RecordingLedger();
    for (const c of calls.slice(0, n)) {
      if (c.op === 'begin') ledger.inner.begin(c.key, c.meta);
      else ledger.inner.finish(c.key, c.outcome);
    }
    return ledger;
  }
}

const edge = (from: string, to: string) => {
  const [fn = '', fp = ''] = from.split('.');
  const [tn = '', tp = ''] = to.split('.');
  return { from: { node: fn, port: fp }, to: { node: tn, port: tp } };
};

/** A read of a file that is not there yet, beside a write that waits for the person's confirmation (so the run is kept on disk). */
function readBesideWait(dir: string): WorkflowGraph {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'read-beside-wait',
    name: 'read-beside-wait',
    servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'path', type: 'text' }, { name: 'note', type: 'text' }] },
      { id: 'read', kind: 'tool', server: 'fs', tool: 'read_text_file', inputs: [{ name: 'path', type: 'text' }], arguments: { path: '{{path}}' } },
      { id: 'save', kind: 'tool', server: 'fs', tool: 'write_file', inputs: [{ name: 'note', type: 'text' }], arguments: { path: join(dir, 'saved.md'), content: '{{note}}' } },
      { id: 'out', kind: 'output', fields: [{ name: 'text', type: 'text' }, { name: 'saved', type: 'text' }] },
    ],
    edges: [edge('in.path', 'read.path'), edge('in.note', 'save.note'), edge('read.text', 'out.text'), edge('save.text', 'out.saved')],
  });
}

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) => events.filter((e): e is RunEventOf<T> => e.type === type);
const readLabels = (calls: readonly LedgerCall[]) => calls.flatMap((c) => (c.op === 'begin' && c.meta.tool === 'read_text_file' ? [c.meta.run_id.replace(/^[^:]*:/, '')] : []));

/**
 * The first run: `read` fails (its file is missing), the supervisor retries it once the save waits,
 * and the file arrives meanwhile. The host "stops" at the moment the retry's call is claimed in the
 * ledger: what it kept then is the last checkpoint written and the ledger up to there.
 */
async function stopDuringRetry() {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const late = join(ws.workspace, 'late.md');
  let saveWaits: () => void = () => undefined;
  const parked = new Promise<void>((resolve) => (saveWaits = resolve));
  const double = new ScriptedSupervisorDouble([{ verdict: VERDICTS.retry }]);
  const supervision: WorkflowSupervisionOptions = {
    settings: settings({ max_retries: 2 }),
    supervisor: {
      identity: LOCAL,
      // Decides once the save is parked (so the run is kept on disk); the file arrives meanwhile.
      decide: async (input, signal) => (await parked, writeFileSync(late, 'arrived late'), double.decide(input, signal)),
    },
  };
  const kept: WorkflowCheckpoint[] = [];
  let atStop: { checkpoint: WorkflowCheckpoint; ledgerRecords: number } | undefined;
  const ledger = new RecordingLedger(createMemoryLedger(), (meta) => {
    if (atStop === undefined && meta.run_id.endsWith(':read#2')) atStop = { checkpoint: kept.at(-1) as WorkflowCheckpoint, ledgerRecords: ledger.calls.length - 1 };
  });
  const events: RunEvent[] = [];
  const base = { graph: readBesideWait(ws.workspace), specDir: ws.dir, workspace: ws.workspace, inputs: { path: late, note: 'noted' }, confirm: async () => 'pending' as const };
  await runWorkflow({
    ...base,
    ledger,
    supervision,
    persistWaiting: (c) => kept.push(WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(c)))),
    onEvent: (e) => {
      events.push(e);
      if (e.type === 'intervention.requested') saveWaits();
    },
  });
  if (!atStop) throw new Error("the retry's call was never claimed");
  expect(double.calls.map((c) => c.input.escalation.attempt)).toEqual([1]);
  return { base, ledger, atStop, events };
}

/** The kept run resumed after the stop: the save's wait approved, a supervisor double asked anything further. */
async function resumeAfterStop({ base, atStop }: Pick<Awaited<ReturnType<typeof stopDuringRetry>>, 'base' | 'atStop'>, ledger: RecordingLedger, double: ScriptedSupervisorDouble) {
  const events: RunEvent[] = [];
  const end = await runWorkflow({
    ...base,
    ledger,
    supervision: { settings: settings({ max_retries: 2 }), supervisor: { identity: LOCAL, decide: (input, signal) => double.decide(input, signal) } },
    resume: { checkpoint: atStop.checkpoint, answer: { action: 'approve' } },
    onEvent: (e) => events.push(e),
  });
  return { end, events };
}

describe("a host stop during a supervisor's retry of a read tool node", () => {
  it('resumes the retry as attempt 2 with its own key: the failed attempt is not run again and no one is asked again', async () => {
    const { base, ledger, atStop } = await stopDuringRetry();
    // What was kept when the host stopped: the read running as the retry, attempt 2.
    expect(atStop.checkpoint.running.map((i) => i.id)).toEqual(['read']);
    expect(atStop.checkpoint.attempts).toEqual({ read: 2 });
    expect(readLabels(ledger.calls.slice(0, atStop.ledgerRecords))).toEqual(['read']);

    const double = new ScriptedSupervisorDouble([]);
    const resumedLedger = RecordingLedger.upTo(ledger.calls, atStop.ledgerRecords);
    const { end, events } = await resumeAfterStop({ base, atStop }, resumedLedger, double);

    expect(end.status).toBe('completed');
    expect(end.outputs).toMatchObject({ text: 'arrived late', saved: expect.stringContaining('saved.md') as unknown });
    // The retry ran under its attempt's key; the failed attempt's key was never claimed again.
    expect(readLabels(resumedLedger.calls)).toEqual(['read#2']);
    expect(double.calls).toHaveLength(0);
    expect(ofType(events, 'supervisor.escalated')).toHaveLength(0);
    for (const e of events) expect(RunEvent.safeParse(e).success).toBe(true);
  }, 90_000);

  it("whose call had already been claimed, fails that attempt safe (its key never runs twice) and the supervisor's next retry runs as attempt 3 with a new key", async () => {
    const { base, ledger, atStop } = await stopDuringRetry();
    // The disk held the retry's claim too (in flight or finished): that key must never run again.
    const resumedLedger = RecordingLedger.upTo(ledger.calls, ledger.calls.length);
    const double = new ScriptedSupervisorDouble([{ verdict: VERDICTS.retry }]);
    const { end } = await resumeAfterStop({ base, atStop }, resumedLedger, double);

    expect(end.status).toBe('completed');
    expect(end.outputs).toMatchObject({ text: 'arrived late' });
    // Asked about attempt 2 (not the first failure again), with one retry left of the two.
    expect(double.calls.map((c) => [c.input.escalation.attempt, c.input.escalation.allowed_actions.includes('retry')])).toEqual([[2, true]]);
    // Before the stop: the failed read and the retry's claim; after it, only attempt 3's new key.
    expect(readLabels(ledger.calls)).toEqual(['read', 'read#2']);
    expect(readLabels(resumedLedger.calls)).toEqual(['read#3']);
    const claimed = [...ledger.calls, ...resumedLedger.calls].filter((c) => c.op === 'begin').map((c) => c.key);
    expect(new Set(claimed).size).toBe(claimed.length);
  }, 90_000);

  it("that then waits for the person's confirmation resumes as that attempt: approved after a restart, the read runs under attempt 2's key", async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const late = join(ws.workspace, 'late.md');
    // A read the workflow wants confirmed each time: the first is confirmed at once, the retry's waits for the person.
    const graph = WorkflowGraph.parse({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'confirmed-read',
      name: 'confirmed-read',
      servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
      tool_effects: { 'fs/read_text_file': { effect: 'read', requires_user_confirmation: true } },
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'path', type: 'text' }] },
        { id: 'read', kind: 'tool', server: 'fs', tool: 'read_text_file', inputs: [{ name: 'path', type: 'text' }], arguments: { path: '{{path}}' } },
        { id: 'out', kind: 'output', fields: [{ name: 'text', type: 'text' }] },
      ],
      edges: [edge('in.path', 'read.path'), edge('read.text', 'out.text')],
    });
    const answers: Array<'granted' | 'pending'> = ['granted', 'pending'];
    const double = new ScriptedSupervisorDouble([{ verdict: VERDICTS.retry }]);
    const supervision: WorkflowSupervisionOptions = {
      settings: settings({ max_retries: 2 }),
      supervisor: { identity: LOCAL, decide: (input, signal) => (writeFileSync(late, 'arrived late'), double.decide(input, signal)) },
    };
    const ledger = new RecordingLedger();
    const base = { graph, specDir: ws.dir, workspace: ws.workspace, inputs: { path: late }, ledger };
    const first = await runWorkflow({ ...base, supervision, confirm: async () => answers.shift() ?? 'pending', onEvent: () => undefined });
    expect(first.status).toBe('waiting');
    const checkpoint = WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(first.checkpoint)));
    expect(checkpoint.attempts).toEqual({ read: 2 });

    const end = await runWorkflow({ ...base, supervision: { ...supervision, supervisor: { identity: LOCAL, decide: (input, signal) => double.decide(input, signal) } }, resume: { checkpoint, answer: { action: 'approve' } }, onEvent: () => undefined });
    expect(end.status).toBe('completed');
    expect(end.outputs).toEqual({ text: 'arrived late' });
    expect(readLabels(ledger.calls)).toEqual(['read', 'read#2']);
    expect(double.calls).toHaveLength(1);
  }, 90_000);
});
