import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, type RunEventOf } from '@shared/contracts/events';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { computeAllowedActions } from '@shared/supervisor/allowed-actions';
import { VERDICTS } from '@shared/supervisor/testing/fixtures';
import { WorkflowGraph } from '@shared/workflow/document';
import { startFakeOllama, type FakeOllama } from '../../../test-support/fake-ollama';
import { supervisedBy } from '../../../test-support/supervised-by';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { createMemoryLedger } from '../../mcp/idempotency-ledger';
import { runWorkflow } from '../run-workflow';

/**
 * Invocation-scoped asset tracking (issue 29, seed 004): what an invocation's failed attempt
 * created is read off its own tool calls, so two items of an iterate running at once, finishing in
 * reverse order, are each escalated with exactly what they wrote — and a retry is not offered after
 * a write. Real scheduler and filesystem MCP server (the files are really written); the agents'
 * student is the fake Ollama server and the supervisor the scripted double (test doubles at the
 * model boundary only); the teacher is the replay script.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const accept = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };

/** items → iterate (2 at once) → an agent that writes the item's file in one round and then runs out of rounds → collect → output. */
function writersGraph(ollama: FakeOllama): WorkflowGraph {
  const edge = (f: string, fp: string, t: string, tp: string) => ({ from: { node: f, port: fp }, to: { node: t, port: tp } });
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'writers',
    name: 'Writers',
    servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'items', type: 'list' }] },
      { id: 'each', kind: 'iterate', concurrency: 2 },
      {
        id: 'writer',
        kind: 'agent',
        instructions: 'Write the file you are given.',
        task: 'Write the file {{path}}.',
        inputs: [{ name: 'path', type: 'text' }],
        models: { student: { provider: 'ollama', model: 'qwen3:4b', host: ollama.url }, teacher: { provider: 'script' } },
        limits: { max_rounds: 1 },
        script: { teacher: [accept, accept, accept, accept] },
      },
      { id: 'all', kind: 'collect' },
      { id: 'out', kind: 'output', fields: [{ name: 'list', type: 'list' }] },
    ],
    edges: [edge('in', 'items', 'each', 'list'), edge('each', 'item', 'writer', 'path'), edge('writer', 'output', 'all', 'item'), edge('all', 'list', 'out', 'list')],
  });
}

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) => events.filter((e): e is RunEventOf<T> => e.type === type);

describe('what a failed invocation created', () => {
  it('two items writing at once, finishing in reverse order: each escalation names exactly its own file, and retry is not offered after the write', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const first = join(ws.workspace, 'item-0.md');
    const second = join(ws.workspace, 'item-1.md');
    // The student writes the file its task names; item 0's answer is held back, so item 1 writes and fails first.
    const ollama = await startFakeOllama({
      models: [{ name: 'qwen3:4b' }],
      chat: (request) => {
        const asked = request.messages.map((m) => m.content).join('\n');
        const path = asked.includes(first) ? first : second;
        return { message: { content: JSON.stringify({ decision_type: 'tool_call', tool_name: 'write_file', arguments: { path, content: `# ${path}\n` } }) }, delay_ms: path === first ? 1500 : 0 };
      },
    });
    cleanups.push(() => ollama.close());
    const { double, supervision } = supervisedBy([{ verdict: VERDICTS.skip }, { verdict: VERDICTS.skip }]);
    const events: RunEvent[] = [];
    const result = await runWorkflow({ graph: writersGraph(ollama), specDir: ws.dir, workspace: ws.workspace, inputs: { items: [first, second] }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), supervision });
    for (const e of events) expect(RunEvent.safeParse(e).success).toBe(true);

    // Both files were really written by the filesystem server.
    expect(existsSync(first) && existsSync(second)).toBe(true);
    const escalated = ofType(events, 'supervisor.escalated');
    // Reverse order: item 1 finished (failed) before item 0.
    expect(escalated.map((e) => e.invocation_id)).toEqual(['writer[each=1]', 'writer[each=0]']);
    expect(escalated[0]?.escalation.created_assets).toEqual([`fs/write_file: ${second}`]);
    expect(escalated[1]?.escalation.created_assets).toEqual([`fs/write_file: ${first}`]);
    // No retry in either allowed set; the supervisor was asked with item 1's list (item 0 then met its sticky skip: the same failure).
    for (const e of escalated) expect(e.escalation.allowed_actions).not.toContain('retry');
    expect(double.calls[0]?.input.escalation.created_assets).toEqual([`fs/write_file: ${second}`]);
    expect(double.calls[0]?.input.allowed).not.toContain('retry');
    expect(result.status).toBe('completed');
    expect(result.invocations.filter((i) => i.node === 'writer').map((i) => i.status)).toEqual(['skipped', 'skipped']);
  }, 60_000);

  it('the allowed set refuses retry for what was created even where the node says it is retry-safe, and says what', () => {
    const facts = { retry_safe: true, spent_usd: 0, has_candidate: false, validator_covers_output: false, streaming: false, emitted: false };
    expect(computeAllowedActions({ ...facts, created_assets: [] }).actions).toContain('retry');
    const refused = computeAllowedActions({ ...facts, created_assets: ['fs/write_file: /notes/a.md', 'fs/create_directory: /notes/b'] });
    expect(refused.actions).not.toContain('retry');
    expect(refused.refused.retry).toBe('the failed attempt already created something (fs/write_file: /notes/a.md and 1 more)');
  });
});
