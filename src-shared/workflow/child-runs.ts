import { roundNumber } from '../contracts/round-number';
import type { ChildIntervention, RunEvent, RunEventOf, RunStatus } from '../contracts/events';

/**
 * Workflows as agents (issue 29): what a child workflow run's events say about its interventions,
 * for its parent's report, and the child runs a parent's events list under their nodes.
 */

type Payload = { type: string; invocation_id?: string } & Record<string, unknown>;
const VERDICT_WORDS = { accept: 'accepted', replace: 'replaced', block: 'blocked', escalate: 'escalated' } as const;

/** The interventions inside a run (a child's), in order: teacher verdicts other than accept, a person's asks and answers, supervisor verdicts, rejected judgments, and those of its own children. */
export function childInterventions(events: readonly (RunEvent | Omit<RunEvent, 'id' | 'run_id' | 'seq' | 'ts'>)[]): ChildIntervention[] {
  const found: ChildIntervention[] = [];
  for (const raw of events) {
    const e = raw as Payload & RunEvent;
    const node = e.invocation_id ?? 'agent';
    switch (e.type) {
      case 'verdict.received': {
        const verdict = e.attempt.verdict;
        if (!verdict || verdict.verdict === 'accept' || !e.attempt.usable) break;
        found.push({ by: 'teacher', node, action: verdict.verdict, text: `the teacher ${VERDICT_WORDS[verdict.verdict]} round ${roundNumber(e.round)}: ${verdict.explanation}`.slice(0, 600) });
        break;
      }
      case 'intervention.requested':
        found.push({ by: 'person', node, action: 'asked', text: `asked a person: ${e.intervention.reason}`.slice(0, 600) });
        break;
      case 'intervention.answered':
        found.push({ by: 'person', node, action: e.answer.action, text: `${e.settled_by === 'expiry' ? 'the decision time ran out' : e.settled_by === 'sticky' ? 'an earlier answer applied' : 'a person answered'}: ${e.answer.action}${e.answer.note ? ` (${e.answer.note})` : ''}`.slice(0, 600) });
        break;
      case 'supervisor.verdict':
        found.push({ by: 'supervisor', node: e.node, action: e.verdict.verdict.action, text: `the workflow supervisor chose ${e.verdict.verdict.action} (${e.verdict.decided_by}): ${e.verdict.verdict.reason}`.slice(0, 600) });
        break;
      case 'pattern.judgment': {
        const judged = e.judgment.verdict;
        if (!judged || judged.verdict === 'approved') break;
        found.push({ by: 'judge', node, action: judged.verdict, text: `a judgment ${judged.verdict} the output: ${judged.verdict === 'rejected' ? judged.feedback : judged.reason}`.slice(0, 600) });
        break;
      }
      case 'subworkflow.finished':
        for (const inner of e.interventions) found.push({ ...inner, node: `${node} › ${inner.node}`.slice(0, 200) });
        break;
      default:
        break;
    }
  }
  return found.slice(0, 200);
}

/** A child run as its parent's report shows it under the node that ran it. */
export interface ChildRunView {
  invocation_id: string;
  workflow_id: string;
  workflow_name: string;
  child_run_id: string;
  /** Absent while it runs. */
  status?: Exclude<RunStatus, 'running'>;
  message?: string;
  /** The agent tool call that ran it, when an agent did. */
  tool?: string;
  interventions: ChildIntervention[];
}

/** The child runs of a run, from its events (subworkflow.started / finished), in the order they started. */
export function childRunsOf(events: readonly RunEvent[]): ChildRunView[] {
  const runs = new Map<string, ChildRunView>();
  for (const e of events) {
    if (e.type === 'subworkflow.started') {
      // A waiting child resumed starts again: it runs on, with what it had so far.
      const earlier = runs.get(e.child_run_id)?.interventions ?? [];
      runs.set(e.child_run_id, { invocation_id: e.invocation_id ?? '', workflow_id: e.workflow_id, workflow_name: e.workflow_name, child_run_id: e.child_run_id, ...(e.tool !== undefined ? { tool: e.tool } : {}), interventions: earlier });
    }
    if (e.type === 'subworkflow.finished') {
      const known = runs.get(e.child_run_id);
      const ended: RunEventOf<'subworkflow.finished'> = e;
      runs.set(e.child_run_id, {
        invocation_id: known?.invocation_id ?? e.invocation_id ?? '',
        workflow_id: e.workflow_id,
        workflow_name: known?.workflow_name ?? e.workflow_id,
        child_run_id: e.child_run_id,
        status: ended.status,
        ...(ended.message !== undefined ? { message: ended.message } : {}),
        ...(e.tool !== undefined ? { tool: e.tool } : {}),
        // A waiting child that resumed ends again: what it had is kept, what came after added.
        interventions: [...(known?.interventions ?? []), ...ended.interventions].slice(-200),
      });
    }
  }
  return [...runs.values()];
}
