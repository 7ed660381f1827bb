import type { HumanAnswer, Intervention } from '@shared/contracts/intervention';
import { PatternJudgmentAsk } from '@shared/pattern/human-ask';
import { humanJudgmentInput, JUDGMENT_ACTIONS, judgmentAnswerProblem } from '@shared/pattern/human-answer';
import type { PatternEvent, WaitingFor } from '@shared/pattern/machine';
import type { NodeOf } from '@shared/workflow/document';
import type { NodeOutcome, NodeRun } from '../node-outcome';

/**
 * The `human` caller of a pattern node (issue 12): the loop yields mid-iteration. The machine rests
 * in `waiting` with nothing running; its persisted snapshot goes into the workflow checkpoint with
 * a `pattern_judgment` intervention (the outputs, the evidence to cite, the iteration), so the run
 * parks like any node waiting for a person and resumes *at the judgment* — live, or after a host
 * restart — with the person's verdict (HUMAN_ANSWERED) or, once its expiry has passed, the host
 * timer's `expired` (JUDGMENT_EXPIRED: the fallback model judges, or the system escalates).
 */

import { PatternPark } from './pattern-park';
export { PatternPark } from './pattern-park';

export interface JudgmentAskInput {
  runId: string;
  invocationId: string;
  node: NodeOf<'pattern'>;
  waiting: WaitingFor;
  /** The judged units (PIPELINE steps judged one by one; 1 otherwise). */
  steps: number;
  /** The rejection feedback the output under judgment was asked to address. */
  previousFeedback?: string;
  now: Date;
}

/** The question a person is asked: a `pattern_judgment` intervention, unique per ask (a re-ask after a verification failure is a new one). */
export function judgmentIntervention(p: JudgmentAskInput): Intervention {
  const { waiting, node } = p;
  const caller = node.judgment.callers.find((c) => c.kind === 'human');
  const expiry = waiting.expiry_seconds;
  const ask = PatternJudgmentAsk.parse({
    judgment_id: waiting.judgment_id,
    node: node.id,
    pattern_type: node.type,
    step: waiting.step,
    steps: p.steps,
    iteration: waiting.iteration,
    max_iterations: node.max_iterations,
    output: waiting.output,
    outputs: waiting.outputs,
    ...(p.previousFeedback !== undefined ? { previous_feedback: p.previousFeedback } : {}),
    ...(waiting.problem !== undefined ? { problem: waiting.problem } : {}),
    min_citations: node.judgment.verifier.min_citations,
    must_cite: node.judgment.verifier.must_cite,
    ...(expiry !== undefined ? { expires_at: new Date(p.now.getTime() + expiry * 1000).toISOString(), fallback: caller?.kind === 'human' ? caller.fallback : { kind: 'escalate' } } : {}),
  });
  const where = p.steps > 1 ? `step ${waiting.step + 1} of ${p.steps}, ` : '';
  const again = waiting.problem !== undefined ? ` Asked again: ${waiting.problem}` : '';
  return {
    id: `${p.runId}:${p.invocationId}:${waiting.judgment_id}`,
    run_id: p.runId,
    round: 0,
    kind: 'pattern_judgment',
    reason: `Judge the output of the ${node.type} pattern ${node.name ?? node.id} (${where}iteration ${waiting.iteration} of ${node.max_iterations}).${again}`,
    reason_codes: [],
    options: [...JUDGMENT_ACTIONS],
    requested_at: p.now.toISOString(),
    judgment: ask,
  };
}

/** The same words wherever a judgment's answer is checked (live, from a checkpoint, the CLI): throws what is wrong. */
export function checkJudgmentAnswer(ask: PatternJudgmentAsk, answer: HumanAnswer, now = Date.now()): void {
  const problem = judgmentAnswerProblem(ask, answer, now);
  if (problem !== undefined) throw new Error(problem);
}

/** The event that resumes the parked loop: the person's verdict, or the expiry. */
export function resumeEvent(intervention: Intervention, answer: HumanAnswer, now: Date, who?: string): PatternEvent {
  const ask = intervention.judgment;
  if (!ask) throw new Error(`the intervention ${intervention.id} is not a pattern judgment`);
  const input = humanJudgmentInput(ask, answer);
  if (input.kind === 'expired') return { type: 'JUDGMENT_EXPIRED', at: now.toISOString() };
  return { type: 'HUMAN_ANSWERED', answer: input.verdict, started_at: intervention.requested_at, ended_at: now.toISOString(), ...(who !== undefined ? { who } : {}) };
}

/** The node parks for a person: the question goes into the journal, the loop's snapshot into the outcome the checkpoint keeps. */
export function parkForJudgment(run: Pick<NodeRun, 'emit'>, ask: JudgmentAskInput, snapshot: unknown, iterations: PatternPark['iterations'] = [], replay: PatternPark['replay'] = {}): NodeOutcome {
  const intervention = judgmentIntervention(ask);
  run.emit({ type: 'intervention.requested', round: 0, intervention });
  // Through JSON as the checkpoint will hold it: what is parked is what resumes.
  return { status: 'waiting', intervention, pattern: PatternPark.parse(JSON.parse(JSON.stringify({ snapshot, iterations, replay }))) };
}

/**
 * A parked judgment answered: the answer goes into the journal, and the loop resumes from its
 * snapshot with the person's verdict or the expiry. Fails closed when the checkpoint kept no loop.
 */
export function answerJudgment(
  run: Pick<NodeRun, 'emit'>,
  parked: { intervention: Intervention; pattern?: PatternPark },
  answer: HumanAnswer,
  now: Date,
): { snapshot: PatternPark['snapshot']; event: PatternEvent } {
  if (!parked.pattern) throw new Error(`the waiting pattern node has no loop state to resume (${parked.intervention.id})`);
  run.emit({ type: 'intervention.answered', round: 0, intervention_id: parked.intervention.id, answer });
  return { snapshot: parked.pattern.snapshot, event: resumeEvent(parked.intervention, answer, now) };
}
