import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, type RunEventOf } from '@shared/contracts/events';
import { AgentSpec } from '@shared/contracts/spec';
import { WorkflowGraph } from '@shared/workflow/document';
import { historyPath } from '../events/history-db';
import { openHistory } from '../events/open-history';
import { openHostWrites } from '../mcp/journal-ledger';
import { exportEvents } from '../otlp/export-otlp';
import { runTraceId } from '../otlp/trace-ids';
import { startModernLoopbackServer, type ModernLoopbackServer } from '../mcp/modern-loopback-server';
import { cliWith, journalEvents } from '../../test-support/cli-capture';
import { EXIT } from '../shells/cli/cli';
import { answerCommands } from '../shells/cli/answer-words';
import { RunManager } from './run-manager';
import { waitingStoresOn } from './waiting-stores';

/**
 * Issue 30: a 2026-07-28 server's input request in the middle of a tool call waits like every other
 * wait. The app's run pauses the call and waits (an `intervention.requested` of kind `server_input`
 * and a checkpoint in the history database); a host started afresh on the same data folder still
 * shows it; the person's answer resumes the run there, and the server gets the same call again with
 * the answer and its `requestState`, exactly once; the write-effect ledger holds one call.
 * Real parts: the SDK v2 server on loopback, the history database, the host's ledger and RunManager;
 * the models are a replay script.
 */

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const accept = { json: { verdict: 'accept', reason_codes: [], explanation: 'Booking the room the task names.' } };

function bookingSpec(url: string) {
  return AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'book-a-room',
    name: 'Book a room',
    instructions: 'Book the room the task names.',
    task: 'Book room blue.',
    servers: [{ id: 'hotel', url }],
    tool_effects: { 'hotel/book_room': { effect: 'reversible_write' } },
    // The teacher reviews the write (a protected effect) and accepts it.
    supervision: { phase: 3 },
    script: {
      latency_ms: 0,
      student: [{ json: { decision_type: 'tool_call', tool_name: 'book_room', arguments: { room: 'blue' } } }, { json: { decision_type: 'complete', output: 'Room blue is booked.' } }],
      teacher: [accept, accept],
      committee: [],
      monitor: [],
    },
  });
}

/** One host on the data folder: its history, its ledger, its waiting runs and its RunManager. Closed with `stop()` (the host going away). */
function hostOn(dataDir: string) {
  const journal = openHistory(dataDir, { log: () => undefined });
  const { writer, ledger } = openHostWrites(journal, dataDir);
  const stores = waitingStoresOn(journal.connection, { now: (step) => writer.commit(step) }, dataDir);
  const events: RunEvent[] = [];
  const manager = new RunManager({
    ledger,
    onEvent: (event) => {
      // Every event crosses the contract, as the page gets it.
      events.push(RunEvent.parse(event));
      writer.onEvent(event);
    },
    baseDir: dataDir,
    ...stores,
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await manager.closeAll();
    writer.flush();
    journal.close();
  };
  cleanups.push(stop);
  return { manager, events, ledger, stop };
}

function ledgerRows(dataDir: string, runId: string): Array<{ key: string; state: string; round: number }> {
  const db = new Database(historyPath(dataDir), { readonly: true });
  try {
    return db.prepare('SELECT key, state, round FROM ledger WHERE run_id = ?').all(runId) as Array<{ key: string; state: string; round: number }>;
  } finally {
    db.close();
  }
}

async function setUp(): Promise<{ server: ModernLoopbackServer; dataDir: string }> {
  const server = await startModernLoopbackServer('reject');
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-server-input-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }), () => server.close());
  return { server, dataDir };
}

/** Host 1 starts the run; it ends waiting for the server's question. */
async function runUntilAsked(server: ModernLoopbackServer, dataDir: string) {
  const first = hostOn(dataDir);
  const { run_id } = first.manager.start(bookingSpec(server.url), {}, { allowed_hosts: ['127.0.0.1'] });
  await first.manager.settled(run_id);
  return { first, run_id };
}

describe("a 2026-07-28 server's input request waits durably (issue 30)", () => {
  it('waits with a recorded question and a checkpoint; a new host shows it; the answer continues the same call once, and the run completes', async () => {
    const { server, dataDir } = await setUp();
    const { first, run_id } = await runUntilAsked(server, dataDir);

    const requested = first.events.find((e): e is RunEventOf<'intervention.requested'> => e.type === 'intervention.requested');
    expect(requested?.intervention).toMatchObject({
      kind: 'server_input',
      options: ['approve', 'decline', 'cancel', 'stop'],
      reason: 'hotel/book_room asks you: Who is room blue for?',
      server_input: { server: 'hotel', tool: 'book_room', asks: [{ key: 'guest', mode: 'form', message: 'Who is room blue for?' }] },
    });
    // The server's opaque state is the checkpoint's to keep, never the person's to see.
    expect(JSON.stringify(first.events)).not.toContain('booking-blue-1');
    expect(first.events.some((e) => e.type === 'run.finished')).toBe(false);
    const round = first.events.find((e): e is RunEventOf<'round.completed'> => e.type === 'round.completed');
    expect(round?.record).toMatchObject({ outcome: 'escalated', reason: 'input_required' });
    expect(server.calls).toHaveLength(1);
    // The call's key is claimed (in flight): it is the same call when it continues, never a second one.
    expect(ledgerRows(dataDir, run_id).map((r) => r.state)).toEqual(['in_flight']);
    await first.stop();

    // The host comes back: the question is still there, and so is what continues the call.
    const second = hostOn(dataDir);
    const [waiting] = second.manager.pendingShown();
    expect(waiting).toMatchObject({ run_id, kind: 'server_input' });
    expect(second.manager.waitingRunIds().has(run_id)).toBe(true);
    // What the CLI prints to answer it: the form's fields to fill in.
    expect(answerCommands(run_id, waiting!)).toEqual([
      `steward answer ${run_id} approve --arguments '{"who":"…","nights":"…"}'`,
      `steward answer ${run_id} decline`,
      `steward answer ${run_id} cancel`,
      `steward answer ${run_id} stop`,
    ]);
    // A form answer that does not fit is refused in words, and the run keeps waiting.
    expect(() => second.manager.answer(run_id, waiting?.id ?? '', { action: 'approve', arguments: { nights: 2 } })).toThrow(/your answers do not fit the form: who/);
    expect(second.manager.pending()).toHaveLength(1);

    expect(second.manager.answer(run_id, waiting?.id ?? '', { action: 'approve', arguments: { who: 'Ada', nights: 2 } })).toBe(true);
    await second.manager.settled(run_id);

    const executed = second.events.find((e): e is RunEventOf<'tool.executed'> => e.type === 'tool.executed');
    expect(executed?.execution.content).toBe('booked blue for Ada (2 nights)');
    expect(second.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed', output: 'Room blue is booked.' });
    // The person's entries go to the server only: the trace records the answer, not what they typed.
    const answered = second.events.find((e) => e.type === 'intervention.answered');
    expect(answered).toMatchObject({ answer: { action: 'approve' } });
    expect(JSON.stringify(second.events)).not.toContain('Ada"');
    // The server saw the call, then its continuation with the answer and its own state, once; both with the run's trace context.
    expect(server.calls.map(({ tool, requestState, answered: a }) => ({ tool, requestState, answered: a }))).toEqual([
      { tool: 'book_room', requestState: undefined, answered: undefined },
      { tool: 'book_room', requestState: 'booking-blue-1', answered: 'accept' },
    ]);
    expect(server.calls[1]?.traceparent).toBe(server.calls[0]?.traceparent);
    // The server's own spans (the call that asked, and its continuation) are in the run's trace, under the call's client span of Steward's export.
    const exported = JSON.parse(new TextDecoder().decode(exportEvents([...first.events, ...second.events]).body)) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; traceId: string; spanId: string }> }> }> };
    const call = exported.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((x) => x.spans)).find((x) => x.name === 'tools/call book_room');
    expect(call?.traceId).toBe(runTraceId(run_id));
    expect(server.spans.map((x) => ({ traceId: x.traceId, parentSpanId: x.parentSpanId, outcome: x.outcome }))).toEqual([
      { traceId: call?.traceId, parentSpanId: call?.spanId, outcome: 'input_required' },
      { traceId: call?.traceId, parentSpanId: call?.spanId, outcome: 'complete' },
    ]);
    // One write in the ledger: the paused call's key, executed by its continuation (read after the host has gone, as
    // the executed mark commits with the writer's next window).
    expect(second.manager.pending()).toEqual([]);
    await second.stop();
    const rows = ledgerRows(dataDir, run_id);
    expect(rows).toEqual([{ key: executed?.execution.idempotency_key, state: 'executed', round: 0 }]);
  }, 60_000);

  it('answered from the command line after the host is gone: steward answer … approve --arguments continues the call', async () => {
    const { server, dataDir } = await setUp();
    const { first, run_id } = await runUntilAsked(server, dataDir);
    await first.stop();
    const refused = await cliWith(['answer', run_id, 'approve', '--arguments', JSON.stringify({ nights: 2 }), '--data-dir', dataDir]);
    expect(refused.code).toBe(EXIT.badInput);
    expect(refused.stderr).toContain('your answers do not fit the form: who');
    const answered = await cliWith(['answer', run_id, 'approve', '--arguments', JSON.stringify({ who: 'Grace', nights: 3 }), '--data-dir', dataDir]);
    expect(answered.code, answered.stderr).toBe(EXIT.ok);
    expect(answered.stdout).toContain('completed · 3 round(s)');
    const executed = journalEvents(dataDir).find((e): e is RunEventOf<'tool.executed'> => e.type === 'tool.executed');
    expect(executed?.execution.content).toBe('booked blue for Grace (3 nights)');
    expect(server.calls.map((c) => ({ requestState: c.requestState, answered: c.answered }))).toEqual([
      { requestState: undefined, answered: undefined },
      { requestState: 'booking-blue-1', answered: 'accept' },
    ]);
  }, 60_000);

  it('a decline is sent as a decline: the server ends its call as it chooses, and the run goes on', async () => {
    const { server, dataDir } = await setUp();
    const { first, run_id } = await runUntilAsked(server, dataDir);
    const [waiting] = first.manager.pending();
    expect(first.manager.answer(run_id, waiting?.id ?? '', { action: 'decline' })).toBe(true);
    await first.manager.settled(run_id);
    expect(server.calls.map((c) => c.answered)).toEqual([undefined, 'decline']);
    const executed = first.events.find((e): e is RunEventOf<'tool.executed'> => e.type === 'tool.executed');
    expect(executed?.execution).toMatchObject({ content: 'not booked: the person answered decline', is_error: true });
    expect(first.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
  }, 60_000);

  it('a cancel (dismissed) is sent as a cancel', async () => {
    const { server, dataDir } = await setUp();
    const { first, run_id } = await runUntilAsked(server, dataDir);
    const [waiting] = first.manager.pending();
    expect(first.manager.answer(run_id, waiting?.id ?? '', { action: 'cancel' })).toBe(true);
    await first.manager.settled(run_id);
    expect(server.calls.map((c) => c.answered)).toEqual([undefined, 'cancel']);
  }, 60_000);

  it('a server gone by the time the person answers: the run ends failed, saying so in words; the call is never sent again', async () => {
    const { server, dataDir } = await setUp();
    const { first, run_id } = await runUntilAsked(server, dataDir);
    await server.close();
    const [waiting] = first.manager.pending();
    expect(first.manager.answer(run_id, waiting?.id ?? '', { action: 'approve', arguments: { who: 'Ada' } })).toBe(true);
    await first.manager.settled(run_id);
    const finished = first.events.at(-1);
    expect(finished).toMatchObject({ type: 'run.finished', status: 'failed' });
    expect(finished?.type === 'run.finished' && finished.message).toMatch(/^MCP server "hotel" did not start: could not reach http:\/\/127\.0\.0\.1:\d+\/mcp \(ECONNREFUSED\)$/);
    expect(server.calls).toHaveLength(1);
    expect(ledgerRows(dataDir, run_id).map((r) => r.state)).toEqual(['in_flight']);
  }, 60_000);
});

describe("a 2026-07-28 server's input request in a workflow's agent node (issue 30)", () => {
  function bookingWorkflow(url: string) {
    const agent = bookingSpec(url);
    return WorkflowGraph.parse({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'book',
      name: 'Book',
      servers: agent.servers,
      tool_effects: agent.tool_effects,
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'room', type: 'text' }] },
        { id: 'booker', kind: 'agent', instructions: agent.instructions, task: 'Book room {{room}}.', inputs: [{ name: 'room', type: 'text' }], supervision: { phase: 3 }, script: agent.script },
        { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'in', port: 'room' }, to: { node: 'booker', port: 'room' } },
        { from: { node: 'booker', port: 'output' }, to: { node: 'out', port: 'said' } },
      ],
    });
  }

  it('parks the node with the question; a new host shows it; the answer continues the same call once and the workflow completes', async () => {
    const { server, dataDir } = await setUp();
    const first = hostOn(dataDir);
    const { run_id } = first.manager.startWorkflow({ graph: bookingWorkflow(server.url), specDir: dataDir }, { room: 'blue' }, { allowed_hosts: ['127.0.0.1'] });
    await expect.poll(() => first.manager.pending().length, { timeout: 20_000 }).toBe(1);
    await first.manager.settled(run_id);
    expect(first.manager.pending()[0]).toMatchObject({ run_id, kind: 'server_input', server_input: { server: 'hotel', tool: 'book_room' } });
    expect(JSON.stringify(first.events)).not.toContain('booking-blue-1');
    await first.stop();

    const second = hostOn(dataDir);
    const [waiting] = second.manager.pendingShown();
    expect(waiting).toMatchObject({ run_id, kind: 'server_input' });
    expect(() => second.manager.answer(run_id, waiting?.id ?? '', { action: 'approve', arguments: { nights: 2 } })).toThrow(/your answers do not fit the form: who/);
    expect(second.manager.answer(run_id, waiting?.id ?? '', { action: 'approve', arguments: { who: 'Ada', nights: 2 } })).toBe(true);
    await expect.poll(() => second.events.some((e) => e.type === 'run.finished'), { timeout: 20_000 }).toBe(true);
    expect(second.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed', outputs: { said: 'Room blue is booked.' } });
    expect(server.calls.map((c) => ({ requestState: c.requestState, answered: c.answered }))).toEqual([
      { requestState: undefined, answered: undefined },
      { requestState: 'booking-blue-1', answered: 'accept' },
    ]);
  }, 60_000);
});

describe("a 2026-07-28 server's input request in a workflow's tool node (issue 30)", () => {
  function toolWorkflow(url: string) {
    return WorkflowGraph.parse({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'book-direct',
      name: 'Book directly',
      servers: [{ id: 'hotel', url }],
      // Not protected here, so no confirmation comes first: the server's own question is what waits.
      tool_effects: { 'hotel/book_room': { effect: 'read' } },
      nodes: [
        { id: 'in', kind: 'input', fields: [{ name: 'room', type: 'text' }] },
        { id: 'book', kind: 'tool', server: 'hotel', tool: 'book_room', arguments: { room: '{{room}}' }, inputs: [{ name: 'room', type: 'text' }] },
        { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'in', port: 'room' }, to: { node: 'book', port: 'room' } },
        { from: { node: 'book', port: 'text' }, to: { node: 'out', port: 'said' } },
      ],
    });
  }

  it('parks the node with the question; a new host shows it; the answer continues the same call once, under the same key', async () => {
    const { server, dataDir } = await setUp();
    const first = hostOn(dataDir);
    const { run_id } = first.manager.startWorkflow({ graph: toolWorkflow(server.url), specDir: dataDir }, { room: 'blue' }, { allowed_hosts: ['127.0.0.1'] });
    await expect.poll(() => first.manager.pending().length, { timeout: 20_000 }).toBe(1);
    await first.manager.settled(run_id);
    expect(first.manager.pending()[0]).toMatchObject({ run_id, kind: 'server_input', options: ['approve', 'decline', 'cancel', 'stop'], server_input: { server: 'hotel', tool: 'book_room' } });
    expect(JSON.stringify(first.events)).not.toContain('booking-blue-1');
    expect(ledgerRows(dataDir, `${run_id}:book`).map((r) => r.state)).toEqual(['in_flight']);
    await first.stop();

    const second = hostOn(dataDir);
    const [waiting] = second.manager.pendingShown();
    expect(waiting).toMatchObject({ run_id, kind: 'server_input' });
    expect(() => second.manager.answer(run_id, waiting?.id ?? '', { action: 'approve', arguments: { nights: 2 } })).toThrow(/your answers do not fit the form: who/);
    expect(second.manager.answer(run_id, waiting?.id ?? '', { action: 'approve', arguments: { who: 'Grace', nights: 3 } })).toBe(true);
    await expect.poll(() => second.events.some((e) => e.type === 'run.finished'), { timeout: 20_000 }).toBe(true);
    expect(second.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed', outputs: { said: 'booked blue for Grace (3 nights)' } });
    expect(JSON.stringify(second.events)).not.toContain('Grace"');
    expect(server.calls.map((c) => ({ requestState: c.requestState, answered: c.answered }))).toEqual([
      { requestState: undefined, answered: undefined },
      { requestState: 'booking-blue-1', answered: 'accept' },
    ]);
    // The executed mark commits with the writer's next window (a crash before it leaves the key in flight, never run
    // again), so it is read once this host has gone and its writes are all committed.
    await second.manager.settled(run_id);
    await second.stop();
    expect(ledgerRows(dataDir, `${run_id}:book`).map((r) => r.state)).toEqual(['executed']);
  }, 60_000);
});
