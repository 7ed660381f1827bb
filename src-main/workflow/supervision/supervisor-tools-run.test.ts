import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunEventOf } from '@shared/contracts/events';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { ensureBuilt } from '../../../test-support/ensure-built';
import { startFakeOllama, type FakeChatRequest, type FakeChatResult, type FakeOllama } from '../../../test-support/fake-ollama';
import { hostPage, openTestHost } from '../../../test-support/host-session';
import { NOTES_SANDBOX } from '../../../test-support/workspace';

/**
 * The model supervisor's read-only tools in real runs (issue 29, seed 004): a supervisor model —
 * the fake Ollama server, the test double at the model boundary — calls `get_run_state`, then
 * `read_node_output` for a node whose output exists only for another item (refused: a sibling's output) and
 * for the run's input (read), before its verdict. Once as `steward run … --supervise` in its own
 * process, once through the host API (`workflows.run`). The run is real: the filesystem MCP server
 * reads each note, a template shouts it, a collect gathers the list; the missing note fails.
 */

const execFileP = promisify(execFile);
const BIN = fileURLToPath(new URL('../../../bin/steward.mjs', import.meta.url));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const edge = (f: string, fp: string, t: string, tp: string) => ({ from: { node: f, port: fp }, to: { node: t, port: tp } });

/** items → iterate (one at a time) → read (filesystem) → shout (template) → collect → output. */
const nodes = [
  { id: 'in', kind: 'input', fields: [{ name: 'items', type: 'list' }] },
  { id: 'each', kind: 'iterate', concurrency: 1 },
  { id: 'read', kind: 'tool', server: 'fs', tool: 'read_text_file', inputs: [{ name: 'path', type: 'text' }], arguments: { path: '{{path}}' } },
  { id: 'shout', kind: 'template', inputs: [{ name: 'text', type: 'text' }], template: '{{text}}!' },
  { id: 'all', kind: 'collect' },
  { id: 'out', kind: 'output', fields: [{ name: 'list', type: 'list' }] },
];
const edges = [edge('in', 'items', 'each', 'list'), edge('each', 'item', 'read', 'path'), edge('read', 'text', 'shout', 'text'), edge('shout', 'output', 'all', 'item'), edge('all', 'list', 'out', 'list')];

const toolResults = (request: FakeChatRequest) => request.messages.filter((m) => m.role === 'user' && m.content.startsWith('Result of '));

/**
 * The supervisor model: its next step by how many tool results its conversation holds. The first
 * answer waits a moment, so the first item's shout has run by the time it looks.
 */
function supervisorModel(request: FakeChatRequest): FakeChatResult {
  const step = (body: unknown, delay_ms = 0): FakeChatResult => ({ message: { content: JSON.stringify(body) }, delay_ms });
  switch (toolResults(request).length) {
    case 0:
      return step({ step: 'get_run_state' }, 500);
    case 1:
      return step({ step: 'read_node_output', node: 'shout' });
    case 2:
      return step({ step: 'read_node_output', node: 'in' });
    default:
      return step({ step: 'verdict', verdict: { action: 'skip', reason: 'the note is missing; the other item is fine' } });
  }
}

async function fakeSupervisor(): Promise<FakeOllama> {
  const server = await startFakeOllama({ models: [{ name: 'qwen3:4b' }], chat: (request) => supervisorModel(request) });
  cleanups.push(() => server.close());
  return server;
}

/** What the supervisor read, in order: each tool result it was given before its verdict. */
function expectToolsRead(server: FakeOllama, missing: string): void {
  const requests = server.chatRequests();
  expect(requests).toHaveLength(4);
  const [state, sibling, input] = toolResults(requests[3] as FakeChatRequest).map((m) => m.content);
  // The run's state: the failed item's read, and the first item done.
  expect(state).toMatch(/^Result of get_run_state: /);
  expect(state).toContain('"id":"read[each=1]"');
  expect(state).toMatch(/"id":"shout\[each=0\]","node":"shout","status":"done"/);
  // The first item's shout is a sibling's output: not given. This item's own shout has none yet, and the answer says so.
  expect(sibling).toBe('Result of read_node_output: shout[each=1] has no output (status pending); shout also ran for other items, whose outputs are not readable here');
  // The run's input is on every item's path: read.
  expect(input).toMatch(/^Result of read_node_output: \{"invocation":"in","outputs":/);
  expect(input).toContain(JSON.stringify(missing).slice(1, -1));
}

describe('a model supervisor reads the run with its tools before its verdict', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it('steward run --supervise, as its own process: get_run_state, a refused sibling read, the input read, then its skip (exit 0)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'steward-sv-tools-cli-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const sandbox = join(dir, 'notes');
    cpSync(NOTES_SANDBOX, sandbox, { recursive: true });
    const file = join(dir, 'read-notes.workflow.json');
    writeFileSync(file, JSON.stringify({ format: 'steward/v1', kind: 'workflow', id: 'read-notes', name: 'Read notes', servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: [sandbox] }], nodes, edges }));
    const server = await fakeSupervisor();
    const missing = join(sandbox, 'missing.md');

    const { stdout, stderr } = await execFileP(process.execPath, [BIN, 'run', file, '--supervise', '--supervisor-model', 'ollama:qwen3:4b', '--input', `items=${JSON.stringify([join(sandbox, 'ideas.md'), missing])}`, '--json'], {
      env: { ...process.env, STEWARD_DATA_DIR: join(dir, 'data'), OLLAMA_HOST: server.url },
    });
    const printed = JSON.parse(stdout) as { status: string; supervision: { interventions: Array<{ node: string; verdict: Record<string, unknown> }> } };
    expect(printed.status, stderr).toBe('completed');
    expect(printed.supervision.interventions).toMatchObject([{ node: 'read', verdict: { decided_by: 'agent', verdict: { action: 'skip', reason: 'the note is missing; the other item is fine' } } }]);
    expect(stderr).toContain('→ skip (decided by the supervisor): the note is missing; the other item is fine');
    expectToolsRead(server, missing);
  }, 120_000);

  it('through the host API (workflows.run): the same reads, the sibling refused, then its skip; the run completes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-sv-tools-host-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const sandbox = join(dataDir, 'workspaces', 'notes');
    mkdirSync(join(dataDir, 'workspaces'), { recursive: true });
    cpSync(NOTES_SANDBOX, sandbox, { recursive: true });
    const server = await fakeSupervisor();
    const missing = join(sandbox, 'missing.md');

    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    await page.ok('workspaces.register', { workspace: { id: 'notes', path: sandbox } });
    const workflow = HostedWorkflowGraph.parse({
      format: 'steward/v1',
      kind: 'workflow',
      id: 'read-notes',
      name: 'Read notes',
      workspace: 'notes',
      supervisor: { enabled: true, who: { kind: 'model', model: { provider: 'ollama', model: 'qwen3:4b', host: server.url } } },
      servers: [{ id: 'fs', server: 'filesystem' }],
      nodes,
      edges,
    });
    await page.ok('workflows.save', { workflow });
    const { run_id } = await page.ok('workflows.run', { id: 'read-notes', inputs: { items: [join(sandbox, 'ideas.md'), missing] } });
    await expect.poll(() => page.events.some((e) => e.type === 'run.finished' && e.run_id === run_id), { timeout: 60_000 }).toBe(true);

    const finished = page.events.find((e): e is RunEventOf<'run.finished'> => e.type === 'run.finished' && e.run_id === run_id);
    expect(finished).toMatchObject({ status: 'completed', outputs: { list: [expect.stringMatching(/!$/)] } });
    const verdict = page.events.find((e): e is RunEventOf<'supervisor.verdict'> => e.type === 'supervisor.verdict' && e.run_id === run_id);
    expect(verdict).toMatchObject({ node: 'read', next: 'skip', verdict: { decided_by: 'agent', verdict: { action: 'skip' } } });
    // Every supervisor call is in the run's privacy log, the later ones with the tool results they carried.
    const called = page.events.filter((e): e is RunEventOf<'model.called'> => e.type === 'model.called' && e.run_id === run_id);
    expect(called).toHaveLength(4);
    expectToolsRead(server, missing);
  }, 120_000);
});
