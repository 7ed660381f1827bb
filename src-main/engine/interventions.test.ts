import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import type { HumanAnswer } from '@shared/contracts/intervention';
import type { ModelScript, ScriptEntry } from '@shared/contracts/script';
import { AgentSpec, type AgentSpecInput } from '@shared/contracts/spec';
import { createMemoryLedger, openFileLedger, type IdempotencyLedger } from '../mcp/idempotency-ledger';
import { RunCheckpoint } from './checkpoint';
import { waitingStoresIn } from '../../test-support/waiting-stores';
import { runAgent } from './run-agent';
import { tempNotesWorkspace } from '../../test-support/workspace';
import Database from 'better-sqlite3';
import { historyPath } from '../events/history-db';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function setup(supervision: AgentSpecInput['supervision'], tool_effects: AgentSpecInput['tool_effects'] = {}) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'human-in-the-loop',
    name: 'Human in the loop',
    instructions: 'Work in ${workspace}.',
    task: 'Share the notes.',
    workspace: 'notes-sandbox',
    servers: [{ id: 'fs', package: '@modelcontextprotocol/server-filesystem', args: ['${workspace}'], tools: ['read_text_file', 'write_file'] }],
    supervision,
    tool_effects,
  });
  return { ws, spec };
}

const write = (ws: { workspace: string }, file: string): ScriptEntry => ({
  json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(ws.workspace, file), content: `shared ${file}` } },
});
const complete: ScriptEntry = { json: { decision_type: 'complete', output: 'done' } };
const escalate: ScriptEntry = { json: { verdict: 'escalate', reason_codes: ['policy_violation'], explanation: 'A person should approve what gets shared.' } };
const accept: ScriptEntry = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };

async function start(s: ReturnType<typeof setup>, script: Partial<ModelScript>, ledger: IdempotencyLedger = createMemoryLedger()) {
  const events: RunEvent[] = [];
  const fullScript = { latency_ms: 0, student: [], teacher: [], ...script };
  const result = await runAgent({ spec: s.spec, specDir: s.ws.dir, workspace: s.ws.workspace, script: fullScript, ledger, onEvent: (e) => events.push(e) });
  return { result, events, script: fullScript };
}

async function resume(s: ReturnType<typeof setup>, checkpoint: RunCheckpoint, answer: HumanAnswer, ledger: IdempotencyLedger = createMemoryLedger()) {
  // Through JSON and the schema, as it would come back from disk after a restart.
  const restored = RunCheckpoint.parse(JSON.parse(JSON.stringify(checkpoint)));
  const events: RunEvent[] = [];
  const result = await runAgent({
    spec: restored.spec,
    specDir: restored.spec_dir,
    workspace: restored.workspace,
    script: restored.script,
    ledger,
    onEvent: (e) => events.push(e),
    resume: { checkpoint: restored, answer },
  });
  return { result, events };
}

function contiguous(events: RunEvent[]) {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  for (const e of events) expect(RunEvent.safeParse(e).success).toBe(true);
}

describe('escalation to a person', () => {
  it('the run waits, persisted, with the candidate and the teacher\'s reason; nothing runs until the person answers', async () => {
    const s = setup({ phase: 3, on_escalate: 'human' });
    const { result, events } = await start(s, { student: [write(s.ws, 'shared.md'), complete], teacher: [escalate] });
    expect(result.status).toBe('waiting');
    expect(result.intervention).toMatchObject({ kind: 'escalation', reason: 'A person should approve what gets shared.', options: ['approve', 'reject', 'takeover', 'stop'] });
    expect(result.intervention?.decision).toMatchObject({ tool_name: 'write_file' });
    expect(events.at(-1)?.type).toBe('intervention.requested');
    expect(events.some((e) => e.type === 'run.finished')).toBe(false);
    expect(existsSync(join(s.ws.workspace, 'shared.md'))).toBe(false);
  });

  it('approve: the very decision runs (validated and authorized again), then the student carries on; one trace, in order', async () => {
    const s = setup({ phase: 3, on_escalate: 'human' });
    const first = await start(s, { student: [write(s.ws, 'shared.md'), complete], teacher: [escalate] });
    const checkpoint = first.result.checkpoint!;
    const { result, events } = await resume(s, checkpoint, { action: 'approve' });
    expect(result.status).toBe('completed');
    expect(readFileSync(join(s.ws.workspace, 'shared.md'), 'utf8')).toBe('shared shared.md');
    expect(result.rounds[0]).toMatchObject({ review: { rule: 'human_decided' }, selected: { source: 'human' }, outcome: 'executed', intervention_id: checkpoint.intervention.id });
    contiguous([...first.events, ...events]);
    expect(events[0]).toMatchObject({ type: 'intervention.answered', answer: { action: 'approve' } });
    const finished = events.at(-1);
    expect(finished).toMatchObject({ type: 'run.finished', status: 'completed', rounds: 3, event_count: first.events.length + events.length });
  });

  it('reject: nothing runs, the student is told and proposes again; its final answer is then reviewed', async () => {
    const s = setup({ phase: 3, on_escalate: 'human' });
    const first = await start(s, { student: [write(s.ws, 'shared.md'), complete], teacher: [escalate, accept] });
    const { result } = await resume(s, first.result.checkpoint!, { action: 'reject', note: 'Not yet, wait for the minutes.' });
    expect(result.status).toBe('completed');
    expect(result.rounds[0]?.review).toEqual({ required: true, rule: 'after_refusal' });
    expect(existsSync(join(s.ws.workspace, 'shared.md'))).toBe(false);
    expect(result.history.map((h) => h.decision.decision_type)).toEqual(['complete']);
  });

  it('stop: the run ends stopped by the person, nothing runs', async () => {
    const s = setup({ phase: 3, on_escalate: 'human' });
    const first = await start(s, { student: [write(s.ws, 'shared.md')], teacher: [escalate] });
    const { result, events } = await resume(s, first.result.checkpoint!, { action: 'stop' });
    expect(result.status).toBe('stopped');
    expect(result.message).toBe('you stopped the run');
    expect(events.map((e) => e.type)).toEqual(['intervention.answered', 'run.finished']);
    expect(existsSync(join(s.ws.workspace, 'shared.md'))).toBe(false);
  });

  it('takeover: the teacher decides the next rounds, continuing the replay script where it stopped', async () => {
    const s = setup({ phase: 3, on_escalate: 'human', takeover_rounds: 1 });
    const first = await start(s, { student: [write(s.ws, 'shared.md'), complete], teacher: [escalate, write(s.ws, 'teacher.md'), accept] });
    const { result } = await resume(s, first.result.checkpoint!, { action: 'takeover' });
    expect(result.status).toBe('completed');
    expect(result.rounds.map((r) => r.proposer)).toEqual(['teacher', 'student']);
    expect(existsSync(join(s.ws.workspace, 'teacher.md'))).toBe(true);
    expect(existsSync(join(s.ws.workspace, 'shared.md'))).toBe(false);
  });
});

describe('tools that need the user\'s confirmation', () => {
  it('the round stops before the tool, the run waits, and approval runs it exactly once', async () => {
    const s = setup({ phase: 3 }, { 'fs/write_file': { effect: 'reversible_write', requires_user_confirmation: true } });
    const dir = mkdtempSync(join(tmpdir(), 'steward-ledger-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const ledger = openFileLedger(join(dir, 'ledger.jsonl'));
    // The app's confirm policy: the host never answers for the person.
    const events: RunEvent[] = [];
    const script = { latency_ms: 0, student: [write(s.ws, 'confirmed.md'), complete], teacher: [accept] };
    const first = await runAgent({ spec: s.spec, specDir: s.ws.dir, workspace: s.ws.workspace, script, ledger, onEvent: (e) => events.push(e), confirm: async () => 'pending' });
    expect(first.status).toBe('waiting');
    expect(first.intervention).toMatchObject({ kind: 'confirmation', options: ['approve', 'reject', 'stop'] });
    expect(first.rounds[0]).toMatchObject({ outcome: 'blocked', reason: 'confirmation_pending' });
    expect(existsSync(join(s.ws.workspace, 'confirmed.md'))).toBe(false);

    const { result } = await resume(s, first.checkpoint!, { action: 'approve' }, ledger);
    expect(result.status).toBe('completed');
    expect(result.executions.map((e) => e.tool)).toEqual(['write_file']);
    expect(readFileSync(join(s.ws.workspace, 'confirmed.md'), 'utf8')).toBe('shared confirmed.md');
  });
});

describe('the checkpoint store', () => {
  it('keeps a waiting run across a restart and refuses a damaged one without losing it', async () => {
    const s = setup({ phase: 3, on_escalate: 'human' });
    const { result } = await start(s, { student: [write(s.ws, 'shared.md')], teacher: [escalate] });
    const dir = mkdtempSync(join(tmpdir(), 'steward-cp-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const opened = () => waitingStoresIn(dir, cleanups).checkpoints;
    opened().save(result.checkpoint!);
    const logs: string[] = [];
    expect(opened().list((l) => logs.push(l)).map((c) => c.run_id)).toEqual([result.run_id]);
    // A row that is not a checkpoint (written by hand, or by a newer Steward): reported by run, kept, never resumed.
    const db = new Database(historyPath(dir));
    db.prepare("INSERT INTO waiting (kind, run_id, body, saved_at) VALUES ('agent', 'broken-run-0001', '{\"version\":1', '')").run();
    db.close();
    expect(opened().list((l) => logs.push(l))).toHaveLength(1);
    expect(logs.join('\n')).toMatch(/broken-run-0001 could not be read and is left as it is/);
    expect(opened().claim('broken-run-0001')).toBeUndefined();
    const db2 = new Database(historyPath(dir), { readonly: true });
    expect(db2.prepare("SELECT claimed_by FROM waiting WHERE run_id = 'broken-run-0001'").get()).toEqual({ claimed_by: null });
    db2.close();
  });
});

describe('dry run and profile settings', () => {
  it('a dry run calls the models and goes through review and authorization, but executes no tool and touches no ledger', async () => {
    const s = setup({ phase: 2 });
    const ledger = createMemoryLedger();
    const events: RunEvent[] = [];
    const result = await runAgent({
      spec: s.spec,
      specDir: s.ws.dir,
      workspace: s.ws.workspace,
      script: { latency_ms: 0, student: [write(s.ws, 'dry.md'), complete], teacher: [accept, accept] },
      ledger,
      onEvent: (e) => events.push(e),
      dryRun: true,
    });
    expect(result.status).toBe('completed');
    expect(result.dry_run).toBe(true);
    expect(existsSync(join(s.ws.workspace, 'dry.md'))).toBe(false);
    expect(result.executions[0]?.content).toBe('(dry run: fs/write_file was not executed)');
    expect(ledger.state(result.executions[0]!.idempotency_key)).toBe('new');
    expect(events[0]).toMatchObject({ type: 'run.started', dry_run: true });
  });

  it('a trace profile without tool results and a learning profile that records nothing are honoured', async () => {
    const s = setup({ phase: 2 });
    const events: RunEvent[] = [];
    await runAgent({
      spec: s.spec,
      specDir: s.ws.dir,
      workspace: s.ws.workspace,
      script: { latency_ms: 0, student: [{ json: { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: join(s.ws.workspace, 'ideas.md') } } }, complete], teacher: [accept, accept] },
      ledger: createMemoryLedger(),
      onEvent: (e) => events.push(e),
      trace: { include_tool_results: false },
      learning: { record: false, kinds: [] },
      profiles: { trace: { id: 'lean-trace', name: 'Lean trace', version: 2 } },
    });
    expect(JSON.stringify(events)).not.toContain('Ideas backlog');
    expect(events.find((e) => e.type === 'tool.executed')).toMatchObject({ execution: { content: expect.stringMatching(/not kept by the trace profile/) } });
    expect(events.filter((e) => e.type === 'learning.example')).toEqual([]);
    expect(events[0]).toMatchObject({ type: 'run.started', profiles: { trace: { id: 'lean-trace', version: 2 } } });
  });
});
