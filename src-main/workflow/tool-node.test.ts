import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEventPayload } from '@shared/contracts/events';
import { WorkflowGraph, type NodeOf } from '@shared/workflow/document';
import { SecretRegistry } from '../credentials/secret-registry';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { tempNotesWorkspace } from '../../test-support/workspace';
import type { NodeRun } from './node-outcome';
import { runToolNode, toolOutputs, type ToolNodeDeps } from './tool-node';
import { WorkflowTools } from './workflow-tools';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function graphWith(tool: Record<string, unknown>): WorkflowGraph {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'tools',
    name: 'Tools',
    servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }],
    nodes: [{ id: 'call', kind: 'tool', server: 'fs', inputs: [{ name: 'path', type: 'text' }], ...tool }],
  });
}

function setup(tool: Record<string, unknown>, extra: Partial<ToolNodeDeps> = {}) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const graph = graphWith(tool);
  const secrets = new SecretRegistry();
  const vars = { specDir: ws.dir, workspace: ws.workspace };
  const tools = new WorkflowTools({ graph, vars, cwd: ws.dir, secrets });
  cleanups.push(() => tools.close());
  const ledger = createMemoryLedger();
  const events: RunEventPayload[] = [];
  const node = graph.nodes[0] as NodeOf<'tool'>;
  const deps: ToolNodeDeps = { runId: 'run-tools-0001', graph, tools, ledger, secrets, vars, ...extra };
  const call = (inputs: Record<string, unknown>, id = 'call') => {
    const run: NodeRun = { invocation: { id, node: 'call', lineage: [], inputs }, emit: (p) => events.push(p), signal: new AbortController().signal };
    return runToolNode(node, run, deps);
  };
  return { ws, call, events };
}

describe('tool node', () => {
  it("a tool's text is its JSON result when it is an object or an array; any other text is the result's content", () => {
    expect(toolOutputs(' \n{"files": 2}').result).toEqual({ files: 2 });
    expect(toolOutputs('[1, 2]').result).toEqual([1, 2]);
    for (const text of ['42', '"quoted"', 'null', 'plain file contents', '{ not json', '', '[unclosed']) expect(toolOutputs(text)).toEqual({ result: { content: text }, text });
  });

  it('a read tool crosses the boundary unreviewed and gives its text and JSON result', async () => {
    const { ws, call, events } = setup({ tool: 'directory_tree', arguments: { path: '{{path}}' } });
    const outcome = await call({ path: ws.workspace });
    expect(outcome.status).toBe('done');
    if (outcome.status !== 'done') return;
    const names = (outcome.outputs.result as Array<{ name: string }>).map((e) => e.name).sort();
    expect(names).toEqual(['ideas.md', 'meeting-notes.md']);
    expect(typeof outcome.outputs.text).toBe('string');
    expect(events.map((e) => e.type)).toEqual(['round.started', 'candidate.proposed', 'candidate.validated', 'review.decided', 'decision.selected', 'decision.authorized', 'decision.committed', 'tool.executed', 'round.completed']);
  });

  it('arguments that fail the tool\'s snapshotted schema fail the node and nothing runs', async () => {
    const { call } = setup({ tool: 'read_text_file', arguments: { path: '{{path}}', head: 'ten' } });
    const outcome = await call({ path: 'x' });
    expect(outcome).toMatchObject({ status: 'failed', failure: { code: 'tool_error' } });
    if (outcome.status === 'failed') expect(outcome.failure.message).toMatch(/validation/);
  });

  it('a protected tool without a teacher never runs when the person declines it (--no-confirm) or nobody can confirm it', async () => {
    const { ws, call, events } = setup({ tool: 'write_file', arguments: { path: '{{path}}', content: 'x' } }, { confirm: async () => 'denied' });
    const target = join(ws.workspace, 'new.md');
    // Declined is the person's decision, said as such: not a failure code.
    expect(await call({ path: target })).toMatchObject({ status: 'failed', failure: { code: 'declined_by_person', message: 'you declined fs/write_file' } });
    const nobody = setup({ tool: 'write_file', arguments: { path: '{{path}}', content: 'x' } }, { confirm: async () => 'unavailable' });
    const unconfirmed = await nobody.call({ path: target });
    expect(unconfirmed).toMatchObject({ status: 'failed', failure: { code: 'not_confirmed' } });
    if (unconfirmed.status === 'failed') expect(unconfirmed.failure.message).toMatch(/protected.*none could be obtained/);
    expect(existsSync(target)).toBe(false);
    expect(events.some((e) => e.type === 'tool.executed')).toBe(false);
  });

  it('a protected tool a person confirms runs once: the same invocation again is a duplicate', async () => {
    const { ws, call } = setup({ tool: 'write_file', arguments: { path: '{{path}}', content: 'hello' } }, { confirm: async () => 'granted' });
    const target = join(ws.workspace, 'new.md');
    expect((await call({ path: target })).status).toBe('done');
    expect(readFileSync(target, 'utf8')).toBe('hello');
    const again = await call({ path: target });
    expect(again).toMatchObject({ status: 'failed', failure: { code: 'tool_blocked' } });
    if (again.status === 'failed') expect(again.failure.message).toMatch(/already made, or started before a stop cut it off: it is never made twice/);
  });

  it('a protected tool with a teacher is reviewed: a block verdict stops it, an accept runs it', async () => {
    const blockVerdict = { verdict: 'block', reason_codes: ['unsafe_effect'], explanation: 'not that file' };
    const acceptVerdict = { verdict: 'accept', reason_codes: [], explanation: 'fine' };
    const { ws, call, events } = setup({
      tool: 'write_file',
      arguments: { path: '{{path}}', content: 'report' },
      review: { teacher: { provider: 'script' }, script: { teacher: [{ json: blockVerdict }, { json: acceptVerdict }] } },
    });
    const blocked = join(ws.workspace, 'meeting-notes.md');
    const before = readFileSync(blocked, 'utf8');
    expect(await call({ path: blocked }, 'call[a=0]')).toMatchObject({ status: 'failed', failure: { code: 'tool_blocked', message: 'not that file' } });
    expect(readFileSync(blocked, 'utf8')).toBe(before);
    const target = join(ws.workspace, 'report.md');
    expect((await call({ path: target }, 'call[a=1]')).status).toBe('done');
    expect(readFileSync(target, 'utf8')).toBe('report');
    expect(events.filter((e) => e.type === 'review.decided').map((e) => (e.type === 'review.decided' ? e.review.rule : ''))).toEqual(['protected_effect', 'protected_effect']);
    // The privacy log has each review, what it was shown and where; the workflow's own call is no model call.
    const logged = events.flatMap((e) => (e.type === 'model.called' ? [[e.caller, e.purpose, e.model, e.local, e.data.join(' ')]] : []));
    expect(logged).toEqual([
      ['teacher', 'review', 'replay', true, 'instructions task offered_tools candidate validation'],
      ['teacher', 'review', 'replay', true, 'instructions task offered_tools candidate validation'],
    ]);
  });

  it('${workspace} in the arguments is the workflow\'s folder; an input holding ${…} is used as it is, never substituted', async () => {
    const { ws, call } = setup({ tool: 'read_text_file', arguments: { path: '${workspace}/{{path}}' } });
    const read = await call({ path: 'ideas.md' });
    expect(read.status).toBe('done');
    if (read.status === 'done') expect(read.outputs.text).toBe(readFileSync(join(ws.workspace, 'ideas.md'), 'utf8'));
    const injected = await call({ path: '${specDir}' }, 'call[b=0]');
    expect(injected.status).toBe('failed');
    if (injected.status === 'failed') expect(injected.failure.message).toContain('${specDir}');
  });

  it('a teacher that escalates the call: the node waits for a person where one answers later, and fails with the teacher\'s reason where nobody can', async () => {
    const escalate = { json: { verdict: 'escalate', reason_codes: ['policy_violation'], explanation: 'A person should decide this write.' } };
    const tool = { tool: 'write_file', arguments: { path: '{{path}}', content: 'x' }, review: { teacher: { provider: 'script' }, script: { teacher: [escalate, escalate] } } };
    const cli = setup(tool);
    const target = join(cli.ws.workspace, 'x.md');
    expect(await cli.call({ path: target })).toMatchObject({ status: 'failed', failure: { code: 'tool_escalated', message: expect.stringMatching(/A person should decide this write/) } });
    const app = setup(tool, { parkEscalations: true });
    const parked = await app.call({ path: join(app.ws.workspace, 'x.md') });
    expect(parked).toMatchObject({ status: 'waiting', intervention: { kind: 'escalation', reason: 'A person should decide this write.', decision: { tool_name: 'write_file' }, options: ['approve', 'decline', 'stop'] } });
    expect(existsSync(join(app.ws.workspace, 'x.md'))).toBe(false);
  });

  it('a template that names an input the node did not get fails the node before any call', async () => {
    const { call, events } = setup({ tool: 'read_text_file', arguments: { path: '{{nowhere}}' } });
    expect(await call({ path: 'x' })).toMatchObject({ status: 'failed', failure: { code: 'template_error' } });
    expect(events).toEqual([]);
  });
});
