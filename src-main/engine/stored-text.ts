import type { RunEventPayload, RunEventType } from '@shared/contracts/events';
import { boundTexts, type TrimmedText } from '@shared/util/trim-text';

/**
 * Where each record keeps what a model said (its reply, parsed candidate, decisions, verdicts,
 * the run's output): these texts are stored trimmed (src-shared/util/trim-text.ts) in events —
 * and so traces, the app's database and learning examples — and in the run's result (`--json`).
 * Prompts, tool results and learning contexts are not model text and keep their own limits.
 */
const ROUND_RECORD = ['candidate', 'repairs', 'verdicts', 'verdict', 'selected', 'message', 'execution.arguments'];

const MODEL_SAID: Partial<Record<RunEventType, readonly string[]>> = {
  'candidate.proposed': ['reply', 'parsed'],
  'verdict.received': ['attempt'],
  'decision.selected': ['decision'],
  'decision.committed': ['decision'],
  'response.delivered': ['decision'],
  'tool.executed': ['execution.arguments'],
  'round.completed': ROUND_RECORD.map((p) => `record.${p}`),
  'intervention.requested': ['intervention'],
  'learning.example': ['student_candidate', 'verdict', 'final_decision'],
  'run.finished': ['output', 'message', 'outputs'],
  'agent.finished': ['output', 'message'],
  // A workflow's values (a file a tool read, what an agent said) are copied into every node event.
  'workflow.started': ['inputs'],
  'node.invocation': ['inputs', 'outputs', 'failure.message'],
  'scs.transcript': ['reply'],
  'scs.committee.plan_drafted': ['plan', 'error'],
  'model.retry': ['reason'],
  // A supervisor's substitute is what a model made up (an escalation's texts are bounded when it is built).
  'supervisor.verdict': ['verdict.verdict.value'],
  // A pattern's outputs are what its members said; an approval's verdict carries the output too.
  'pattern.iteration': ['output'],
  'pattern.judgment': ['judgment.verdict'],
  'pattern.preference': ['rejected', 'chosen', 'feedback'],
};

const RESULT_PATHS = [
  'output',
  'message',
  'intervention',
  'history.*.decision',
  'executions.*.arguments',
  ...ROUND_RECORD.map((p) => `rounds.*.${p}`),
];

/** The event as stored: model text trimmed, what was trimmed listed with its original size. */
export function boundEvent(payload: RunEventPayload): RunEventPayload {
  const paths = MODEL_SAID[payload.type];
  if (!paths) return payload;
  const { value, trimmed } = boundTexts(payload, paths);
  return trimmed.length === 0 ? payload : { ...value, trimmed };
}

/** The run's result as reported (`--json`, the app): the same bound. */
export function boundResult<T extends object>(result: T): T & { trimmed?: TrimmedText[] } {
  const { value, trimmed } = boundTexts(result, RESULT_PATHS);
  return trimmed.length === 0 ? value : { ...value, trimmed };
}
