import type { RunEvent } from '@shared/contracts/events';
import type { ChatMessage } from '@shared/contracts/model';
import type { CallerIdentity, JudgmentVerdict } from '@shared/pattern/contracts';

/**
 * The judgments a history recorded that a candidate teacher can be asked again (issue 31, seed 002):
 * every pattern node's judgment by a model, a remote A2A agent or a person, with a verified verdict
 * and the judge's prompt recorded beside it (the task, the judgment prompt and the member outputs by
 * id, masked like every event). A verifier's or the driver's own judgment is no one's opinion to
 * compare; a judgment recorded before its prompt was (older runs) is counted, not asked.
 */

export type JudgeKind = 'llm' | 'a2a' | 'human';

export interface RecordedJudgment {
  run_id: string;
  /** The pattern node's invocation. */
  invocation_id: string;
  /** The workflow's name. */
  spec_name: string;
  started_at: string;
  judgment_id: string;
  step: number;
  iteration: number;
  caller: Extract<CallerIdentity, { kind: JudgeKind }>;
  /** The verdict the pattern acted on. */
  past: JudgmentVerdict;
  /** The judge's prompt as recorded (absent in runs recorded before it was). */
  context?: ChatMessage[];
}

const JUDGES = new Set<string>(['llm', 'a2a', 'human'] satisfies JudgeKind[]);
const isJudge = (caller: CallerIdentity): caller is RecordedJudgment['caller'] => JUDGES.has(caller.kind);

/** The judgments of one run, in order. A replay's run is left out: its judgments are its original's, given back. */
export function recordedJudgments(events: readonly RunEvent[]): RecordedJudgment[] {
  const first = events[0];
  if (first === undefined) return [];
  if ((first.type === 'workflow.started' || first.type === 'run.started') && first.replay_of !== undefined) return [];
  const name = first.type === 'workflow.started' ? first.workflow_name : first.type === 'run.started' ? first.spec_name : 'a run';
  const found: RecordedJudgment[] = [];
  for (const event of events) {
    if (event.type !== 'pattern.judgment') continue;
    const { judgment, context } = event;
    if (!isJudge(judgment.caller) || judgment.verdict === undefined || !judgment.verification.ok) continue;
    found.push({
      run_id: first.run_id,
      invocation_id: event.invocation_id ?? '',
      spec_name: name,
      started_at: first.ts,
      judgment_id: judgment.id,
      step: judgment.step,
      iteration: judgment.iteration,
      caller: judgment.caller,
      past: judgment.verdict,
      ...(context !== undefined && context.length > 0 ? { context } : {}),
    });
  }
  return found;
}

/** A recorded judgment a candidate can be asked: its prompt was recorded. */
export const isJudgmentCase = (j: RecordedJudgment): j is RecordedJudgment & { context: ChatMessage[] } => j.context !== undefined;
