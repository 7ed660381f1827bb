import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import type { HumanAction } from '@shared/contracts/intervention';
import { reviewOutcomesFromEvents } from '@shared/policy/promotion';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { escalatingWorkflow } from '../../test-support/escalating-workflow';
import { tempNotesWorkspace } from '../../test-support/workspace';
import { runWorkflow } from './run-workflow';
import { WorkflowCheckpoint } from './workflow-checkpoint';

/**
 * Issue 10: an escalation a person approved is not counted as a protected-effect error. Checked on
 * the events a real run emits (real filesystem server, scripted models as the test double): the
 * teacher escalates the student's write to shared.md, the run waits, a person answers, it resumes.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

async function answered(action: HumanAction): Promise<RunEvent[]> {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const graph = escalatingWorkflow(ws.workspace);
  const events: RunEvent[] = [];
  const saved: WorkflowCheckpoint[] = [];
  const common = { graph, specDir: ws.dir, workspace: ws.workspace, inputs: { name: 'shared.md' }, ledger: createMemoryLedger(), onEvent: (e: RunEvent) => events.push(e) };
  const first = await runWorkflow({ ...common, persistWaiting: (c) => saved.push(c) });
  expect(first.status).toBe('waiting');
  const checkpoint = WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(saved.at(-1))));
  const second = await runWorkflow({ ...common, resume: { checkpoint, answer: { action } } });
  expect(second.status).not.toBe('waiting');
  return events;
}

/** The promotion outcome of the escalated round (the agent node's first round). */
function escalatedRound(events: RunEvent[]) {
  const outcomes = reviewOutcomesFromEvents(events).filter((o) => o.kind === 'review');
  const escalated = events.find((e) => e.type === 'round.completed' && e.record.outcome === 'escalated');
  if (escalated?.type !== 'round.completed') throw new Error('no escalated round');
  return outcomes.find((o) => o.round === escalated.round && o.rule === 'protected_effect');
}

describe('promotion counts of an escalation a person answered, from a real run', () => {
  it('approved: the escalated write is not a protected-effect error', async () => {
    const outcome = escalatedRound(await answered('approve'));
    expect(outcome).toMatchObject({ rule: 'protected_effect', protected_error: false, agreed: false });
  });

  it('rejected: the escalated write still counts as a protected-effect error', async () => {
    const outcome = escalatedRound(await answered('reject'));
    expect(outcome).toMatchObject({ rule: 'protected_effect', protected_error: true });
  });
});
