import type { Decision } from '../contracts/decision';
import type { RunEventOf } from '../contracts/events';
import type { ChatMessage } from '../contracts/model';
import {
  LEARNING_EXPORT_FORMAT_LABELS,
  LEARNING_SKIP_LABELS,
  LEARNING_SKIP_REASONS,
  LearningExample,
  PreferenceLine,
  SftLine,
  type FineTuneMessage,
  type LearningExportFormat,
  type LearningKind,
  type LearningSkipCounts,
  type LearningSkipReason,
  type PromptMessage,
} from '../contracts/learning-export';

/**
 * Learning examples → fine-tuning lines. Pure (no I/O), so the host's CLI export and the app can
 * share it. Which rounds become which lines (docs/learning-data.md):
 * - SFT: every round with a selected final decision — a review (accepted or replaced) or a teacher
 *   demonstration; a shadow comparison is not, its round's decision is already the demonstration;
 * - preference: only disagreements a teacher decision settled — a review the teacher replaced, or a
 *   shadow round where the student proposed something else (preferred = the teacher's decision,
 *   non-preferred = what the student produced);
 * - a blocked or escalated round has no final decision, so it is neither: counted, not written.
 */

export interface LearningConversion<L> {
  lines: L[];
  skipped: LearningSkipCounts;
}

export type ExportLine = SftLine | PreferenceLine;

/**
 * A `learning.example` event as a learning example (the event is already validated and redacted).
 * `context` is its whole prompt, rebuilt by a PromptBook (learning-context.ts) when the event
 * stores only a reference; a reference nobody rebuilt gives no prompt (never a partial one).
 */
export function learningExampleFromEvent(event: RunEventOf<'learning.example'>, specId?: string, context?: ChatMessage[]): LearningExample {
  return LearningExample.parse({
    id: event.id,
    run_id: event.run_id,
    ...(specId !== undefined ? { spec_id: specId } : {}),
    ts: event.ts,
    round: event.round,
    kind: eventKind(event),
    context: context ?? (event.context_ref ? [] : event.context),
    ...(event.rule !== undefined ? { rule: event.rule } : {}),
    student_candidate: event.student_candidate,
    ...(event.verdict !== undefined ? { verdict: event.verdict } : {}),
    ...(event.final_decision !== undefined ? { final_decision: event.final_decision } : {}),
    reason_codes: event.reason_codes,
    agreement: event.agreement,
    models: event.models,
  });
}

/** Typed so a new event kind fails to compile here until the export decides what it teaches. */
function eventKind(event: RunEventOf<'learning.example'>): LearningKind {
  return event.kind;
}

/** A decision as the assistant's text: the compact JSON the student is asked for and sees in its history. */
export function decisionText(decision: Decision): string {
  return JSON.stringify(decision);
}

/** The student's output as it produced it: its raw text, or the JSON its reply parsed to. Undefined when there was none. */
export function candidateText(candidate: unknown): string | undefined {
  if (candidate === undefined) return undefined;
  if (typeof candidate === 'string') return candidate.trim() === '' ? undefined : candidate;
  return JSON.stringify(candidate);
}

/**
 * The student's prompt as fine-tuning messages. `tool` results become user turns ("Tool result:"):
 * a `tool` message is only valid after an assistant `tool_calls` turn, and Steward's prompts carry
 * decisions as JSON text, not native tool calls.
 */
function promptMessages(context: readonly ChatMessage[]): PromptMessage[] {
  const map = {
    system: (content: string): PromptMessage => ({ role: 'system', content }),
    user: (content: string): PromptMessage => ({ role: 'user', content }),
    assistant: (content: string): PromptMessage => ({ role: 'assistant', content }),
    tool: (content: string): PromptMessage => ({ role: 'user', content: `Tool result:\n${content}` }),
  } satisfies Record<ChatMessage['role'], (content: string) => PromptMessage>;
  return context.map((m) => map[m.role](m.content));
}

/** One SFT line, or why the example makes none. Earlier assistant turns get weight 0: they are context, not the lesson. */
export function sftLine(example: LearningExample): SftLine | LearningSkipReason {
  if (example.final_decision === undefined) return 'no_final_decision';
  if (example.kind === 'shadow') return 'shadow_round';
  if (example.context.length === 0) return 'no_context';
  const messages: FineTuneMessage[] = promptMessages(example.context).map((m) => (m.role === 'assistant' ? { ...m, weight: 0 } : m));
  messages.push({ role: 'assistant', content: decisionText(example.final_decision) });
  const checked = SftLine.safeParse({ messages });
  return checked.success ? checked.data : 'invalid_line';
}

/** One preference pair, or why the example makes none. */
export function preferenceLine(example: LearningExample): PreferenceLine | LearningSkipReason {
  if (example.final_decision === undefined) return 'no_final_decision';
  const disagreement = {
    review: () => (example.verdict?.verdict === 'replace' ? undefined : 'agreed'),
    shadow: () => (example.agreement ? 'agreed' : undefined),
    demonstration: () => 'no_student_candidate',
  } satisfies Record<LearningKind, () => LearningSkipReason | undefined>;
  const notAPair = disagreement[example.kind]();
  if (notAPair !== undefined) return notAPair;
  const rejected = candidateText(example.student_candidate);
  if (rejected === undefined) return 'no_student_candidate';
  const chosen = decisionText(example.final_decision);
  if (rejected.trim() === chosen) return 'identical_outputs';
  if (example.context.length === 0) return 'no_context';
  const checked = PreferenceLine.safeParse({
    input: { messages: promptMessages(example.context) },
    preferred_output: [{ role: 'assistant', content: chosen }],
    non_preferred_output: [{ role: 'assistant', content: rejected }],
  });
  return checked.success ? checked.data : 'invalid_line';
}

function convert<L>(examples: readonly LearningExample[], one: (e: LearningExample) => L | LearningSkipReason): LearningConversion<L> {
  const seen = new Set<string>();
  const lines: L[] = [];
  const skipped: LearningSkipCounts = {};
  for (const example of examples) {
    const result = seen.has(example.id) ? 'duplicate' : one(example);
    seen.add(example.id);
    if (isSkipReason(result)) skipped[result] = (skipped[result] ?? 0) + 1;
    else lines.push(result);
  }
  return { lines, skipped };
}

function isSkipReason(value: unknown): value is LearningSkipReason {
  return typeof value === 'string' && (LEARNING_SKIP_REASONS as readonly string[]).includes(value);
}

export function toSftLines(examples: readonly LearningExample[]): LearningConversion<SftLine> {
  return convert(examples, sftLine);
}

export function toPreferenceLines(examples: readonly LearningExample[]): LearningConversion<PreferenceLine> {
  return convert(examples, preferenceLine);
}

export function toExportLines(format: LearningExportFormat, examples: readonly LearningExample[]): LearningConversion<ExportLine> {
  const byFormat = {
    sft: (): LearningConversion<ExportLine> => toSftLines(examples),
    preference: (): LearningConversion<ExportLine> => toPreferenceLines(examples),
  } satisfies Record<LearningExportFormat, () => LearningConversion<ExportLine>>;
  return byFormat[format]();
}

/** JSONL text: one line per example, newline-terminated (empty for no lines). */
export function toJsonl(lines: readonly ExportLine[]): string {
  return lines.map((line) => `${JSON.stringify(line)}\n`).join('');
}

export function skippedTotal(skipped: LearningSkipCounts): number {
  return LEARNING_SKIP_REASONS.reduce((sum, reason) => sum + (skipped[reason] ?? 0), 0);
}

/** "1 skipped: no final decision" / "3 skipped: 2 no final decision, 1 no prompt context" / "" when none. */
export function describeSkipped(skipped: LearningSkipCounts): string {
  const present = LEARNING_SKIP_REASONS.filter((reason) => (skipped[reason] ?? 0) > 0);
  const total = skippedTotal(skipped);
  if (total === 0) return '';
  const [only] = present;
  if (present.length === 1 && only !== undefined) return `${total} skipped: ${LEARNING_SKIP_LABELS[only]}`;
  return `${total} skipped: ${present.map((reason) => `${skipped[reason] ?? 0} ${LEARNING_SKIP_LABELS[reason]}`).join(', ')}`;
}

/** "3 SFT examples" / "1 preference pair". */
export function describeCount(format: LearningExportFormat, count: number): string {
  const noun = { sft: ['example', 'examples'], preference: ['pair', 'pairs'] } satisfies Record<LearningExportFormat, [string, string]>;
  return `${count} ${LEARNING_EXPORT_FORMAT_LABELS[format]} ${noun[format][count === 1 ? 0 : 1]}`;
}
