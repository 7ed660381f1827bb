import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, type RunEventOf } from '@shared/contracts/events';
import type { ChatMessage } from '@shared/contracts/model';
import type { HumanAnswer } from '@shared/contracts/intervention';
import { ModelScript, type ScriptEntry } from '@shared/contracts/script';
import { AgentSpec } from '@shared/contracts/spec';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import type { ModelProvider } from '../providers/provider';
import { createScriptProvider } from '../providers/script-provider';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { RunCheckpoint } from './checkpoint';
import { runAgent, type AgentRun } from './run-agent';

/**
 * "Reject; let the agent try again" on a tool the person must confirm (issue 28): the agent gets the
 * refusal and the note in its next round's prompt and proposes again, bounded by the run's rounds;
 * "Stop the run" ends it cancelled. Real filesystem MCP server; the models are the scripted provider
 * (the model boundary double), wrapped to keep the prompts the student was sent.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const accept: ScriptEntry = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };
const complete: ScriptEntry = { json: { decision_type: 'complete', output: 'Wrote the summary.' } };

function setup(proposals: (workspace: string) => ScriptEntry[], maxRounds = 12) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'confirm-writes',
    name: 'Confirm writes',
    instructions: 'Work in ${workspace}.',
    task: 'Summarise the notes into a file.',
    workspace: 'notes-sandbox',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file', 'write_file'] }],
    supervision: { phase: 3 },
    tool_effects: { 'fs/write_file': { effect: 'reversible_write', requires_user_confirmation: true } },
    limits: { max_rounds: maxRounds },
  });
  const script = ModelScript.parse({ latency_ms: 0, student: proposals(ws.workspace), teacher: Array.from({ length: 8 }, () => accept) });
  // One provider per role for the whole run, across its resumptions: the script goes on where it stopped.
  const prompts: ChatMessage[][] = [];
  const scripted = createScriptProvider(script, 'student');
  const student: ModelProvider = { label: scripted.label, complete: (request) => (prompts.push(request.messages), scripted.complete(request)) };
  const providers = { student, teacher: createScriptProvider(script, 'teacher') };
  const ledger = createMemoryLedger();
  const events: RunEvent[] = [];
  const options = { spec, specDir: ws.dir, workspace: ws.workspace, ledger, providers, onEvent: (e: RunEvent) => events.push(e), confirm: async () => 'pending' as const };
  return {
    ws,
    prompts,
    events,
    start: () => runAgent(options),
    // Through JSON and the schema, as it comes back from the data folder.
    answer: (waiting: AgentRun, answer: HumanAnswer) => runAgent({ ...options, resume: { checkpoint: RunCheckpoint.parse(JSON.parse(JSON.stringify(waiting.checkpoint))), answer } }),
  };
}

const write = (workspace: string, file: string): ScriptEntry => ({ json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(workspace, file), content: `# Summary\n` } } });
const lastUserText = (messages: ChatMessage[] | undefined) => messages?.filter((m) => m.role === 'user').at(-1)?.content ?? '';
const started = (events: RunEvent[]) => events.filter((e): e is RunEventOf<'round.started'> => e.type === 'round.started');

describe('a person rejects a tool call the agent proposed', () => {
  it('nothing runs; the agent\'s next prompt carries the refusal and the note, it proposes again, and the call the person approves then runs', async () => {
    const s = setup((ws) => [write(ws, 'meeting-notes.md'), write(ws, 'summary.md'), complete]);
    const first = await s.start();
    expect(first.status).toBe('waiting');
    expect(first.intervention).toMatchObject({ kind: 'confirmation', options: ['approve', 'reject', 'stop'], rounds_left: 11 });

    const second = await s.answer(first, { action: 'reject', note: 'Do not overwrite the notes; write summary.md instead.' });
    // Proposed again, and waits for the new call.
    expect(second.status).toBe('waiting');
    expect(second.intervention?.decision).toMatchObject({ tool_name: 'write_file', arguments: { path: join(s.ws.workspace, 'summary.md') } });
    expect(second.intervention?.rounds_left).toBe(10);
    // The student's second prompt said what the person said; round.started records it for the run view.
    expect(s.prompts).toHaveLength(2);
    expect(lastUserText(s.prompts[1])).toContain('The user rejected your call of write_file; it did not run. Their note: "Do not overwrite the notes; write summary.md instead.". Propose something else.');
    expect(lastUserText(s.prompts[0])).not.toContain('rejected');
    expect(started(s.events).map((e) => e.told)).toEqual([undefined, expect.stringContaining('Do not overwrite the notes; write summary.md instead.')]);
    expect(readFileSync(join(s.ws.workspace, 'meeting-notes.md'), 'utf8')).not.toBe('# Summary\n');

    const third = await s.answer(second, { action: 'approve' });
    expect(third.status).toBe('completed');
    expect(third.executions.map((e) => e.arguments.path)).toEqual([join(s.ws.workspace, 'summary.md')]);
    expect(existsSync(join(s.ws.workspace, 'summary.md'))).toBe(true);
  });

  it('"Stop the run" ends it stopped by the person: nothing runs and no model is asked again', async () => {
    const s = setup((ws) => [write(ws, 'summary.md'), complete]);
    const first = await s.start();
    const stopped = await s.answer(first, { action: 'stop' });
    expect(stopped.status).toBe('stopped');
    expect(stopped.message).toBe('you stopped the run');
    expect(s.prompts).toHaveLength(1);
    expect(existsSync(join(s.ws.workspace, 'summary.md'))).toBe(false);
  });

  it('is bounded by the run\'s rounds: each question says how many are left, in the last round reject is not offered, and an approval there still runs', async () => {
    const s = setup((ws) => [write(ws, 'a.md'), write(ws, 'b.md')], 2);
    const first = await s.start();
    expect(first.intervention).toMatchObject({ options: ['approve', 'reject', 'stop'], rounds_left: 1 });
    const last = await s.answer(first, { action: 'reject', note: 'not a.md' });
    // Nobody can try again after the last round: approve it or stop the run.
    expect(last.intervention).toMatchObject({ options: ['approve', 'stop'], rounds_left: 0 });
    const ended = await s.answer(last, { action: 'approve' });
    expect(readFileSync(join(s.ws.workspace, 'b.md'), 'utf8')).toBe('# Summary\n');
    // Its rounds used up without an answer: the round limit, said so — not a bare failure.
    expect(ended.status).toBe('max_rounds');
    expect(ended.message).toBe('stopped after 2 rounds without completing');
  });
});
