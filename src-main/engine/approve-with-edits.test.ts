import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import type { ScriptEntry } from '@shared/contracts/script';
import { AgentSpec } from '@shared/contracts/spec';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { askingSpecInput } from '../../test-support/asking-spec';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { waitingStoresIn } from '../../test-support/waiting-stores';
import { runAgent } from './run-agent';
import { RunManager } from './run-manager';

/** Approve with edits: a person may change the arguments of the decision they approve; the edit is validated like any decision. */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

async function waitingEscalation() {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const spec = AgentSpec.parse(askingSpecInput({ phase: 3, on_escalate: 'human' }));
  const write: ScriptEntry = { json: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: join(ws.workspace, 'shared.md'), content: 'for everyone' } } };
  const escalate: ScriptEntry = { json: { verdict: 'escalate', reason_codes: ['policy_violation'], explanation: 'A person should approve what gets shared.' } };
  const complete: ScriptEntry = { json: { decision_type: 'complete', output: 'done' } };
  const accept: ScriptEntry = { json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } };
  const script = { latency_ms: 0, student: [write, complete], teacher: [escalate, accept], committee: [], monitor: [] };
  const first = await runAgent({ spec, specDir: ws.dir, workspace: ws.workspace, script, ledger: createMemoryLedger(), onEvent: () => undefined });
  const checkpoint = first.checkpoint!;
  const dir = mkdtempSync(join(tmpdir(), 'steward-edits-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const { checkpoints } = waitingStoresIn(dir, cleanups);
  checkpoints.save(checkpoint);
  const events: RunEvent[] = [];
  const manager = new RunManager({ ledger: createMemoryLedger(), onEvent: (e) => events.push(e), baseDir: ws.dir, checkpoints });
  return { ws, checkpoint, checkpoints, manager, events };
}

describe('approve with edits', () => {
  it("the person's edited arguments run instead of the proposed ones, recorded in the answer and as a learning example with the person's decision as final", async () => {
    const { ws, checkpoint, manager, events } = await waitingEscalation();
    const edited = { path: join(ws.workspace, 'draft.md'), content: 'for me first' };
    expect(manager.answer(checkpoint.run_id, checkpoint.intervention.id, { action: 'approve', arguments: edited })).toBe(true);
    await manager.settled(checkpoint.run_id);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
    expect(readFileSync(join(ws.workspace, 'draft.md'), 'utf8')).toBe('for me first');
    expect(existsSync(join(ws.workspace, 'shared.md'))).toBe(false);
    expect(events.find((e) => e.type === 'intervention.answered')).toMatchObject({ answer: { action: 'approve', arguments: edited } });
    const selected = events.find((e) => e.type === 'decision.selected');
    expect(selected).toMatchObject({ source: 'human', decision: { tool_name: 'write_file', arguments: edited } });
    const example = events.find((e) => e.type === 'learning.example' && e.rule === 'human_decided');
    expect(example).toMatchObject({ kind: 'review', agreement: false, student_candidate: { arguments: { path: join(ws.workspace, 'shared.md') } }, final_decision: { arguments: edited } });
    // It teaches with the prompt the student saw in the waiting round, kept across the wait.
    const context = example?.type === 'learning.example' ? example.context : [];
    expect(context.map((m) => m.role).slice(0, 2)).toEqual(['system', 'user']);
    expect(context).toEqual(checkpoint.prompt);
  });

  it('an edit that does not pass validation against the round\'s tools is refused with the reason, and the run keeps waiting', async () => {
    const { ws, checkpoint, checkpoints, manager } = await waitingEscalation();
    expect(() => manager.answer(checkpoint.run_id, checkpoint.intervention.id, { action: 'approve', arguments: { path: join(ws.workspace, 'draft.md') } })).toThrow(
      /your edited arguments do not pass validation: arguments the tool refuses.*content/,
    );
    expect(checkpoints.list().map((c) => c.run_id)).toEqual([checkpoint.run_id]);
    expect(manager.activeIds()).toEqual([]);
  });
});
