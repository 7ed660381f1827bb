import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { supervisedBy } from '../../test-support/supervised-by';
import { RunEvent, type RunEventOf } from '@shared/contracts/events';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { VERDICTS } from '@shared/supervisor/testing/fixtures';
import { workflowDifferences } from '@shared/replay/compare-workflow-runs';
import { planWorkflowReplay, replayableWorkflowStart } from '@shared/replay/workflow-replay';
import { WorkflowGraph } from '@shared/workflow/document';
import { edge } from '@shared/workflow/testing/graphs';
import { validateGraph } from '@shared/workflow/validate-graph';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { runWorkflow, type RunWorkflowOptions } from './run-workflow';
import { WorkflowCheckpoint } from './workflow-checkpoint';

/**
 * A streaming tool node (seed 004's streaming producer): one call per element of its list, each
 * result sent downstream as it arrives. Real scheduler, real MCP filesystem server; where a
 * supervisor decides, the scripted supervisor double stands at the model boundary.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

/** files → read (streams read_text_file over them) → iterate → a template per note → collect → output; the stream's whole text also to the output. */
function streamingRead(tool: { name: string; args: Record<string, unknown> } = { name: 'read_text_file', args: { path: '{{item}}' } }): WorkflowGraph {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'stream-read',
    name: 'Stream read',
    servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'files', type: 'list' }] },
      { id: 'read', kind: 'tool', server: 'fs', tool: tool.name, inputs: [{ name: 'files', type: 'list' }], stream: { over: 'files' }, arguments: tool.args },
      { id: 'each', kind: 'iterate', concurrency: 2 },
      { id: 'first', kind: 'template', inputs: [{ name: 'note' }], template: 'first: {{note.content}}' },
      { id: 'all', kind: 'collect' },
      { id: 'out', kind: 'output', fields: [{ name: 'list', type: 'list' }, { name: 'texts', type: 'text', required: false }] },
    ],
    edges: [edge('in.files->read.files'), edge('read.result->each.list'), edge('each.item->first.note'), edge('first.output->all.item'), edge('all.list->out.list'), edge('read.text->out.texts')],
  });
}

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) => events.filter((e): e is RunEventOf<T> => e.type === type);

function workspace() {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  writeFileSync(join(ws.workspace, 'todo.md'), '- water the plants\n');
  return ws;
}

async function run(graph: WorkflowGraph, ws: { dir: string; workspace: string }, files: string[], extra: Partial<RunWorkflowOptions> = {}) {
  const events: RunEvent[] = [];
  const result = await runWorkflow({ graph, specDir: ws.dir, workspace: ws.workspace, inputs: { files: files.map((f) => join(ws.workspace, f)) }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), ...extra });
  for (const e of events) expect(RunEvent.safeParse(e).success).toBe(true);
  return { result, events };
}

const NOTES = ['ideas.md', 'meeting-notes.md', 'todo.md'];
const BROKEN = ['ideas.md', 'meeting-notes.md', 'missing.md', 'todo.md'];

describe('a streaming tool node', () => {
  it('calls its tool once per element, each in its own round and key, and the iterate after it starts on the first result before the stream is done', async () => {
    const ws = workspace();
    const { result, events } = await run(streamingRead(), ws, NOTES);
    expect(result.message).toBeUndefined();
    expect(result.status).toBe('completed');

    const executed = ofType(events, 'tool.executed');
    expect(executed.map((e) => e.round)).toEqual([0, 1, 2]);
    expect(new Set(executed.map((e) => e.execution.idempotency_key)).size).toBe(3);
    // Downstream begins on the first result: the first item runs before the last element is read.
    const firstItem = events.findIndex((e) => e.type === 'node.invocation' && e.invocation_id === 'first[each=0]' && e.status === 'running');
    expect(firstItem).toBeGreaterThan(-1);
    expect(firstItem).toBeLessThan(events.indexOf(executed[2] as RunEvent));

    const notes = NOTES.map((f) => readFileSync(join(ws.workspace, f), 'utf8'));
    expect(result.outputs.list).toEqual(notes.map((n) => `first: ${n}`));
    // Done, the node delivers the whole stream: every result, and their texts one per line.
    expect(result.outputs.texts).toBe(notes.join('\n'));
    expect(result.invocations.find((i) => i.id === 'read')?.outputs?.result).toEqual(notes.map((content) => ({ content })));
  }, 60_000);

  it('failing part-way, unsupervised, fails the run: what it sent was processed, nothing after the failure is called', async () => {
    const ws = workspace();
    const { result, events } = await run(streamingRead(), ws, BROKEN);
    expect(result.status).toBe('failed');
    expect(result.message).toMatch(/2 of 4 results were already sent on/);
    // Element 3 was called and failed (the server's error); element 4 never was.
    expect(ofType(events, 'tool.executed').map((e) => [e.round, e.execution.is_error])).toEqual([[0, false], [1, false], [2, true]]);
    const firsts = result.invocations.filter((i) => i.node === 'first');
    expect(firsts.map((i) => i.status)).toEqual(['done', 'done']);
    expect(ofType(events, 'supervisor.escalated')).toHaveLength(0);
  }, 60_000);

  it('failing part-way, supervised, is offered exactly end_stream or fail; end_stream ends it done with what it sent, and the run completes with those items', async () => {
    const ws = workspace();
    const { double, supervision } = supervisedBy([{ verdict: VERDICTS.end_stream }]);
    const { result, events } = await run(streamingRead(), ws, BROKEN, { supervision });
    expect(result.message).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(double.calls).toHaveLength(1);
    expect(double.calls[0]?.input.escalation).toMatchObject({ node: 'read', streaming: true, allowed_actions: ['end_stream', 'fail'] });

    const notes = BROKEN.slice(0, 2).map((f) => readFileSync(join(ws.workspace, f), 'utf8'));
    expect(result.outputs.list).toEqual(notes.map((n) => `first: ${n}`));
    expect(result.outputs.texts).toBe(notes.join('\n'));
    expect(result.invocations.find((i) => i.id === 'read')).toMatchObject({ status: 'done', outputs: { result: notes.map((content) => ({ content })) } });
    expect(result.invocations.find((i) => i.id === 'each')).toMatchObject({ status: 'done', outputs: { count: 2 } });
    expect(ofType(events, 'supervisor.verdict')[0]).toMatchObject({ node: 'read', next: 'end_stream', verdict: { decided_by: 'agent', verdict: { action: 'end_stream' } } });
    // Ended, not called again: the element after the failure was never read.
    expect(ofType(events, 'tool.executed').map((e) => e.round)).toEqual([0, 1, 2]);
  }, 60_000);

  it('a supervisor that answers skip or retry for a stream gets a fail decided by the kernel: its results are already downstream', async () => {
    for (const verdict of [VERDICTS.skip, VERDICTS.retry]) {
      const ws = workspace();
      const { supervision } = supervisedBy([{ verdict }]);
      const { result, events } = await run(streamingRead(), ws, BROKEN, { supervision });
      expect(result.status).toBe('failed');
      expect(ofType(events, 'supervisor.verdict')[0]).toMatchObject({ next: 'failed', verdict: { decided_by: 'kernel', verdict: { action: 'fail' } } });
      expect(ofType(events, 'tool.executed').map((e) => e.round)).toEqual([0, 1, 2]);
    }
  }, 60_000);

  it('a stream that fails on its first element and is ended delivers an empty list: the iterate closes with no item', async () => {
    const ws = workspace();
    const { supervision } = supervisedBy([{ verdict: VERDICTS.end_stream }]);
    const { result } = await run(streamingRead(), ws, ['missing.md', 'ideas.md'], { supervision });
    expect(result.status).toBe('completed');
    expect(result.outputs.list).toEqual([]);
    expect(result.invocations.find((i) => i.id === 'each')).toMatchObject({ status: 'done', outputs: { count: 0 } });
  }, 60_000);

  it('a protected call waits for a person per element; after a host stop, the answer goes on at that element: nothing sent before is called or sent again', async () => {
    const ws = workspace();
    const writes = streamingRead({ name: 'write_file', args: { path: '{{item}}.copy', content: 'copy of {{item}}' } });
    // The person is asked about the second element only; the others are confirmed at once.
    const second = join(ws.workspace, 'meeting-notes.md');
    const confirm: RunWorkflowOptions['confirm'] = async (call) => (String(call.arguments.path).startsWith(second) ? 'pending' : 'granted');
    const kept: WorkflowCheckpoint[] = [];
    const first = await run(writes, ws, NOTES, { confirm, persistWaiting: (c) => kept.push(structuredClone(c)) });
    expect(first.result.status).toBe('waiting');
    expect(first.result.interventions?.[0]?.intervention).toMatchObject({ kind: 'confirmation', round: 1, decision: { arguments: { path: `${second}.copy` } } });
    expect(ofType(first.events, 'tool.executed')).toHaveLength(1);
    expect(existsSync(`${second}.copy`)).toBe(false);

    const checkpoint = WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(first.result.checkpoint)));
    const after = await run(writes, ws, NOTES, { confirm, resume: { checkpoint, answer: { action: 'approve' } } });
    expect(after.result.message).toBeUndefined();
    expect(after.result.status).toBe('completed');
    // The resumed run called elements 2 and 3 only, in their own rounds.
    expect(ofType(after.events, 'tool.executed').map((e) => e.round)).toEqual([1, 2]);
    for (const f of NOTES) expect(readFileSync(join(ws.workspace, `${f}.copy`), 'utf8')).toBe(`copy of ${join(ws.workspace, f)}`);
    // Every element went downstream exactly once, in order.
    expect((after.result.outputs.list as string[]).length).toBe(3);
    expect(after.result.invocations.filter((i) => i.node === 'first' && i.status === 'done')).toHaveLength(3);
  }, 60_000);
});

const CRASHING_SERVER = fileURLToPath(new URL('../../test-support/crashing-mcp-server.mjs', import.meta.url));

/** words → echo (streams the crashing server's echo over them) → iterate → a template per word → collect → output. */
const streamingEcho = (): WorkflowGraph =>
  WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'stream-echo',
    name: 'Stream echo',
    servers: [{ id: 'flaky', command: process.execPath, args: [CRASHING_SERVER] }],
    tool_effects: { 'flaky/echo': { effect: 'read' } },
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'words', type: 'list' }] },
      { id: 'echo', kind: 'tool', server: 'flaky', tool: 'echo', inputs: [{ name: 'words', type: 'list' }], stream: { over: 'words' }, arguments: { text: '{{item}}' } },
      { id: 'each', kind: 'iterate', concurrency: 1 },
      { id: 'said', kind: 'template', inputs: [{ name: 'word' }], template: 'said {{word.content}}' },
      { id: 'all', kind: 'collect' },
      { id: 'out', kind: 'output', fields: [{ name: 'list', type: 'list' }] },
    ],
    edges: [edge('in.words->echo.words'), edge('echo.result->each.list'), edge('each.item->said.word'), edge('said.output->all.item'), edge('all.list->out.list')],
  });

describe('a server that dies part-way through a stream', () => {
  const WORDS = ['one', 'two', 'crash', 'four'];
  const echo = async (extra: Partial<RunWorkflowOptions> = {}) => {
    const ws = workspace();
    const events: RunEvent[] = [];
    const result = await runWorkflow({ graph: streamingEcho(), specDir: ws.dir, workspace: ws.workspace, inputs: { words: WORDS }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), ...extra });
    for (const e of events) expect(RunEvent.safeParse(e).success).toBe(true);
    return { result, events };
  };

  it('unsupervised, the run fails with a message that names the server and what was already sent; the two results sent were processed, nothing after was called', async () => {
    const { result, events } = await echo();
    expect(result.status).toBe('failed');
    expect(result.message).toMatch(/flaky/);
    expect(result.message).toMatch(/2 of 4 results were already sent on/);
    expect(result.invocations.filter((i) => i.node === 'said').map((i) => [i.status, i.outputs?.output])).toEqual([
      ['done', 'said one'],
      ['done', 'said two'],
    ]);
    // The third call died with the server, a failed round in the trace that says so; the fourth was never made.
    expect(ofType(events, 'round.completed').map((e) => [e.round, e.record.outcome])).toEqual([
      [0, 'executed'],
      [1, 'executed'],
      [2, 'failed'],
    ]);
    expect(ofType(events, 'round.completed')[2]?.record.message).toMatch(/"flaky" exited unexpectedly .*simulated crash/);
    expect(ofType(events, 'run.finished')).toHaveLength(1);
  }, 60_000);

  it('supervised, the crash is offered end_stream or fail; ended there, the run completes with what was sent', async () => {
    const { double, supervision } = supervisedBy([{ verdict: VERDICTS.end_stream }]);
    const { result } = await echo({ supervision });
    expect(result.message).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(double.calls[0]?.input.escalation).toMatchObject({ node: 'echo', streaming: true, allowed_actions: ['end_stream', 'fail'] });
    expect(result.outputs.list).toEqual(['said one', 'said two']);
  }, 60_000);
});

describe('replaying a streaming run', () => {
  it('dry, each element gives back its own recorded result in turn: the same outputs, the same decisions, nothing called', async () => {
    const ws = workspace();
    const writes = streamingRead({ name: 'write_file', args: { path: '{{item}}.copy', content: 'copy of {{item}}' } });
    const recorded = await run(writes, ws, NOTES, { confirm: async () => 'granted' });
    expect(recorded.result.status).toBe('completed');
    const started = replayableWorkflowStart(recorded.events, recorded.events[0]?.run_id ?? '');
    if (!started) throw new Error('not a workflow run');
    const { plan, gaps } = planWorkflowReplay(recorded.events, started, { live: false });
    expect(gaps).toEqual([]);
    expect(plan.invocations.read).toMatchObject({ kind: 'tool', executions: [expect.objectContaining({ tool: 'write_file' }), expect.anything(), expect.anything()] });

    for (const f of NOTES) rmSync(join(ws.workspace, `${f}.copy`));
    const again = await run(writes, ws, NOTES, { confirm: async () => 'granted', replay: plan });
    expect(again.result.status).toBe('completed');
    expect(workflowDifferences(recorded.events, again.events)).toEqual([]);
    expect(again.result.outputs).toEqual(recorded.result.outputs);
    // Dry: the writes were given back, not made.
    for (const f of NOTES) expect(existsSync(join(ws.workspace, `${f}.copy`))).toBe(false);
  }, 60_000);
});

describe('validating a streaming tool node', () => {
  const withStream = (inputs: Array<{ name: string; type: 'list' | 'text'; required?: boolean }>, over: string) =>
    validateGraph(
      WorkflowGraph.parse({
        format: 'steward/v1',
        kind: 'workflow',
        id: 'v',
        name: 'v',
        servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['.'] }],
        nodes: [
          { id: 'in', kind: 'input', fields: [{ name: 'files', type: 'list' }] },
          { id: 'read', kind: 'tool', server: 'fs', tool: 'read_text_file', inputs, stream: { over }, arguments: { path: '{{item}}' } },
          { id: 'out', kind: 'output', fields: [{ name: 'all', type: 'list' }] },
        ],
        edges: [...inputs.map((p) => edge(`in.files->read.${p.name}`)), edge('read.result->out.all')],
      }),
    ).map((p) => p.code);

  it('accepts {{item}} in the arguments of a stream over a required list input', () => {
    expect(withStream([{ name: 'files', type: 'list' }], 'files')).toEqual([]);
  });

  it('names a stream over an input it does not declare, one that is not a list, or one that is optional', () => {
    expect(withStream([{ name: 'files', type: 'list' }], 'paths')).toContain('undeclared_input');
    expect(withStream([{ name: 'files', type: 'text' }], 'files')).toContain('type_mismatch');
    expect(withStream([{ name: 'files', type: 'list', required: false }], 'files')).toContain('stream_input_optional');
  });
});
