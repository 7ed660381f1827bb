import type { RunEventType } from '../contracts/events';
import { boundTexts, type TrimmedText } from '../util/trim-text';

/**
 * Where each record keeps what a model said (its reply, parsed candidate, decisions, verdicts,
 * the run's output): these texts are stored trimmed (src-shared/util/trim-text.ts) in events —
 * and so traces, the app's database and learning examples — and in the run's result (`--json`).
 * Prompts, tool results and learning contexts are not model text and keep their own limits.
 * Shared, so an imported event is bounded exactly as the engine bounds the events it records.
 */
export const ROUND_RECORD_TEXTS = ['candidate', 'repairs', 'verdicts', 'verdict', 'selected', 'message', 'execution.arguments'] as const;

const MODEL_SAID: Partial<Record<RunEventType, readonly string[]>> = {
  'candidate.proposed': ['reply', 'parsed'],
  'verdict.received': ['attempt'],
  'decision.selected': ['decision'],
  'decision.committed': ['decision'],
  'response.delivered': ['decision'],
  'tool.executed': ['execution.arguments'],
  'round.completed': ROUND_RECORD_TEXTS.map((p) => `record.${p}`),
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
  // The judge's prompt carries the members' outputs: bounded like them.
  'pattern.judgment': ['judgment.verdict', 'context'],
  'pattern.preference': ['rejected', 'chosen', 'feedback'],
};

/**
 * The event (or payload) as stored: model text trimmed, what was trimmed listed with its original
 * size. `keepTrimmed` (an imported event): texts trimmed before stay as they are and the event's own
 * list is kept, so a recorded event comes back unchanged and bounding twice changes nothing.
 */
export function boundModelText<T extends { type: RunEventType; trimmed?: TrimmedText[] | undefined }>(event: T, keepTrimmed = false): T {
  const paths = MODEL_SAID[event.type];
  if (!paths) return event;
  const { value, trimmed } = boundTexts(event, paths, undefined, keepTrimmed);
  if (trimmed.length === 0) return event;
  const before = keepTrimmed ? (event.trimmed ?? []).filter((t) => !trimmed.some((n) => n.path === t.path)) : [];
  return { ...value, trimmed: [...before, ...trimmed] };
}
