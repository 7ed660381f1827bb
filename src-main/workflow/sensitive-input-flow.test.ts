import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import { MASK } from '@shared/util/mask';
import { WorkflowGraph, type WorkflowGraphInput } from '@shared/workflow/document';
import { startFakeOpenAI } from '../../test-support/fake-openai';
import { plantedIn, plantedPins } from '../../test-support/sensitive-input-workflow';
import { randomBytes } from 'node:crypto';
import { memorySealKeys } from '../../test-support/seal-keys-double';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { recordingLedger } from '../../test-support/recording-ledger';
import { runWorkflow, type RunWorkflowOptions } from './run-workflow';
import type { WorkflowCheckpoint } from './workflow-checkpoint';

/**
 * Issue 27, the engine's part: a value bound for a sensitive argument is masked from where it
 * enters — for an agent's model too, and after a run waiting for a person resumes in a new process
 * (the registry is built again from the checkpoint's log).
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const FS = { id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'], tools: ['write_file', 'read_text_file'] };
const MASKED = { 'fs/write_file': { effect: 'irreversible_write', sensitive_arguments: ['content'] } } as const;
const PINS = [{ name: 'pin', type: 'text' }, { name: 'code', type: 'text' }] as const;

function graph(extra: Pick<WorkflowGraphInput, 'nodes' | 'edges'>): WorkflowGraph {
  return WorkflowGraph.parse({ format: 'steward/v1', kind: 'workflow', id: 'pins', name: 'Pins', servers: [FS], tool_effects: MASKED, ...extra });
}

function options(workflow: WorkflowGraph, events: RunEvent[], extra: Partial<RunWorkflowOptions> = {}): RunWorkflowOptions {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  return { graph: workflow, specDir: ws.dir, workspace: ws.workspace, inputs: {}, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), ...extra };
}

describe('a value bound for a sensitive argument', () => {
  it('never reaches an agent’s model, which is given its task with the value masked', async () => {
    const model = await startFakeOpenAI({ chat: () => ({ message: { content: JSON.stringify({ decision_type: 'complete', output: 'noted' }) } }) });
    cleanups.push(() => model.close());
    const local = { provider: 'openai_compatible' as const, base_url: model.baseUrl, model: 'm' };
    const pins = plantedPins();
    const workflow = graph({
      nodes: [
        { id: 'in', kind: 'input', fields: [...PINS] },
        { id: 'set', kind: 'tool', server: 'fs', tool: 'write_file', inputs: [...PINS], arguments: { path: 'card.txt', content: '{{pin}} {{code}}' } },
        { id: 'tell', kind: 'agent', instructions: 'Acknowledge.', task: 'Acknowledge PIN {{pin}} and code {{code}}.', inputs: [...PINS], servers: [], supervision: { enabled: false }, models: { student: local, teacher: local } },
        { id: 'out', kind: 'output', fields: [{ name: 'said', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'in', port: 'pin' }, to: { node: 'set', port: 'pin' } },
        { from: { node: 'in', port: 'code' }, to: { node: 'set', port: 'code' } },
        { from: { node: 'in', port: 'pin' }, to: { node: 'tell', port: 'pin' } },
        { from: { node: 'in', port: 'code' }, to: { node: 'tell', port: 'code' } },
        { from: { node: 'tell', port: 'output' }, to: { node: 'out', port: 'said' } },
      ],
    });
    const events: RunEvent[] = [];
    const opts = options(workflow, events, { inputs: { pin: pins.pin, code: pins.code }, confirm: async () => 'granted' });
    const run = await runWorkflow(opts);
    expect(run.status, run.message).toBe('completed');
    expect(readFileSync(join(opts.workspace ?? '', 'card.txt'), 'utf8')).toBe(`${pins.pin} ${pins.code}`);
    const prompts = JSON.stringify(model.chatRequests());
    expect(prompts).toContain(`Acknowledge PIN ${MASK} and code ${MASK}.`);
    expect(plantedIn(prompts, pins), 'the agent’s prompt').toEqual([]);
    expect(plantedIn(JSON.stringify({ events, run }), pins)).toEqual([]);
  });

  it('stays masked after a run waiting for a person resumes (its registry is built again from the checkpoint)', async () => {
    const pins = plantedPins();
    const workflow = graph({
      nodes: [
        { id: 'in', kind: 'input', fields: [...PINS] },
        { id: 'set', kind: 'tool', server: 'fs', tool: 'write_file', inputs: [...PINS], arguments: { path: 'card.txt', content: '{{pin}} {{code}}' } },
        // Runs after the answer: it writes the PIN around the tool's answer.
        { id: 'note', kind: 'template', inputs: [...PINS, { name: 'written', type: 'text' }], template: 'PIN {{pin}} ({{code}}): {{written}}' },
        { id: 'out', kind: 'output', fields: [{ name: 'note', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'in', port: 'pin' }, to: { node: 'set', port: 'pin' } },
        { from: { node: 'in', port: 'code' }, to: { node: 'set', port: 'code' } },
        { from: { node: 'in', port: 'pin' }, to: { node: 'note', port: 'pin' } },
        { from: { node: 'in', port: 'code' }, to: { node: 'note', port: 'code' } },
        { from: { node: 'set', port: 'text' }, to: { node: 'note', port: 'written' } },
        { from: { node: 'note', port: 'output' }, to: { node: 'out', port: 'note' } },
      ],
    });
    const before: RunEvent[] = [];
    const saved: WorkflowCheckpoint[] = [];
    // The keychain's stand-in: the checkpoint is sealed with a key kept there (issue 27).
    const sealKeys = memorySealKeys();
    const opts = options(workflow, before, { inputs: { pin: pins.pin, code: pins.code }, confirm: async () => 'pending', persistWaiting: (c) => saved.push(structuredClone(c)), sealKeys });
    const first = await runWorkflow(opts);
    expect(first.status).toBe('waiting');
    const checkpoint = saved.at(-1);
    if (!checkpoint || !first.interventions?.[0]) throw new Error('the run did not wait');
    expect(plantedIn(JSON.stringify({ before, first }), pins)).toEqual([]);
    // The checkpoint that lets it resume holds the values sealed, never in the clear.
    expect(plantedIn(JSON.stringify(saved), pins), 'the checkpoints').toEqual([]);
    expect(checkpoint.sealed?.key_id).toMatch(/^seal-/);

    const after: RunEvent[] = [];
    const second = await runWorkflow({ ...opts, onEvent: (e) => after.push(e), persistWaiting: undefined, resume: { checkpoint, answer: { action: 'approve' }, invocation: first.interventions[0].invocation_id } });
    expect(second.status, second.message).toBe('completed');
    expect(readFileSync(join(opts.workspace ?? '', 'card.txt'), 'utf8')).toBe(`${pins.pin} ${pins.code}`);
    expect(second.outputs.note).toBe(`PIN ${MASK} (${MASK}): Successfully wrote to card.txt`);
    expect(plantedIn(JSON.stringify({ after, second }), pins)).toEqual([]);
  });

  it('a tool’s result bound for a sensitive argument is masked from its own trace on', async () => {
    const token = `tok-${randomBytes(8).toString('hex')}`;
    const workflow = graph({
      nodes: [
        { id: 'fetch', kind: 'tool', server: 'fs', tool: 'read_text_file', arguments: { path: 'token.txt' } },
        { id: 'set', kind: 'tool', server: 'fs', tool: 'write_file', inputs: [{ name: 'token', type: 'text' }], arguments: { path: 'copy.txt', content: '{{token}}' } },
        { id: 'out', kind: 'output', fields: [{ name: 'written', type: 'text' }] },
      ],
      edges: [
        { from: { node: 'fetch', port: 'text' }, to: { node: 'set', port: 'token' } },
        { from: { node: 'set', port: 'text' }, to: { node: 'out', port: 'written' } },
      ],
    });
    const events: RunEvent[] = [];
    const { ledger, outcomes } = recordingLedger();
    const opts = options(workflow, events, { confirm: async () => 'granted', ledger });
    writeFileSync(join(opts.workspace ?? '', 'token.txt'), token);
    const run = await runWorkflow(opts);
    expect(run.status, run.message).toBe('completed');
    expect(readFileSync(join(opts.workspace ?? '', 'copy.txt'), 'utf8')).toBe(token);
    const fetched = events.find((e) => e.type === 'tool.executed' && e.invocation_id === 'fetch');
    expect(fetched?.type === 'tool.executed' && fetched.execution.content).toBe(MASK);
    expect(JSON.stringify({ events, run })).not.toContain(token);
    // Known to carry the value only after the call: such a run keeps no result with its keys (both calls were made).
    expect(outcomes).toHaveLength(2);
    expect(outcomes.filter((o) => o.result !== undefined)).toEqual([]);
    expect(JSON.stringify(outcomes)).not.toContain(token);
  });
});
