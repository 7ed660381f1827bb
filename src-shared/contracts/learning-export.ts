import { z } from 'zod';
import { Decision } from './decision';
import { ChatMessage } from './model';
import { ReasonCode, TeacherVerdict } from './verdict';
import { ReviewRule } from '../policy/review-policy';

/**
 * Learning data (DESIGN.md §3): one record per reviewed round, distilled from a `learning.example`
 * event, and the two fine-tuning line formats it exports to. The line formats follow OpenAI's
 * fine-tuning files (chat SFT and DPO), the de-facto interchange format; see docs/learning-data.md.
 */

/**
 * What a round teaches: `review` — the teacher ruled on the student's candidate; `shadow` — in
 * phase 1 the student proposed alongside a teacher who acted; `demonstration` — the teacher decided
 * (phase 0, takeover). Mirrors the `kind` of the `learning.example` event.
 */
export const LEARNING_KINDS = ['review', 'shadow', 'demonstration'] as const;
export const LearningKind = z.enum(LEARNING_KINDS);
export type LearningKind = z.infer<typeof LearningKind>;

/**
 * Where a `learning.example` event's prompt comes from when it is not copied whole: messages
 * [start, end) of the prompt of an earlier example of the same agent run (same run, same workflow
 * node invocation), named by its round and kind — not by event id, which a workflow stamps again.
 * The prompt is `context_head` + those messages + `context`. Written by the engine against the
 * previous example, so a trace grows with the rounds, not with their square.
 */
export const LearningContextRef = z
  .object({
    round: z.number().int().nonnegative(),
    kind: LearningKind,
    start: z.number().int().nonnegative(),
    end: z.number().int().nonnegative(),
  })
  .strict()
  .refine((ref) => ref.end >= ref.start, { message: 'end must not be before start' });
export type LearningContextRef = z.infer<typeof LearningContextRef>;

/** One round as learning data. Everything in it was redacted before the event existed. */
export const LearningExample = z
  .object({
    /** The `learning.example` event id (`run_id:seq`): stable, so re-importing a trace dedupes. */
    id: z.string().min(1),
    run_id: z.string().min(1),
    /** The agent spec the run came from, when the trace holds its `run.started` event. */
    spec_id: z.string().optional(),
    ts: z.string(),
    round: z.number().int().nonnegative(),
    kind: LearningKind,
    /** The student's prompt messages for the round: the input side of a fine-tuning example. */
    context: z.array(ChatMessage),
    /** The review rule that sent the round to the teacher. */
    rule: ReviewRule.optional(),
    /** What the student produced: the JSON it parsed to, or its raw text when it did not parse (none for a demonstration). */
    student_candidate: z.unknown().optional(),
    verdict: TeacherVerdict.optional(),
    /** The selected decision (student's if accepted, teacher's if replaced or it decided); absent when blocked or escalated. */
    final_decision: Decision.optional(),
    reason_codes: z.array(ReasonCode),
    agreement: z.boolean(),
    models: z.object({ student: z.string(), teacher: z.string() }).strict(),
  })
  .strict();
export type LearningExample = z.infer<typeof LearningExample>;

export const LEARNING_EXPORT_FORMATS = ['sft', 'preference'] as const;
export const LearningExportFormat = z.enum(LEARNING_EXPORT_FORMATS);
export type LearningExportFormat = z.infer<typeof LearningExportFormat>;

export const LEARNING_EXPORT_FORMAT_LABELS = {
  sft: 'SFT',
  preference: 'preference',
} satisfies Record<LearningExportFormat, string>;

// ---------------------------------------------------------------------------------------------
// Line formats. Roles are system/user/assistant only: a `tool` message needs an assistant
// `tool_calls` turn before it, and Steward's history keeps decisions as JSON text, so tool results
// are exported as user turns (see docs/learning-data.md).

const SystemLine = z.object({ role: z.literal('system'), content: z.string() }).strict();
const UserLine = z.object({ role: z.literal('user'), content: z.string() }).strict();
/** `weight: 0` = context only, not trained on (OpenAI chat SFT); absent = trained on. */
const AssistantLine = z
  .object({ role: z.literal('assistant'), content: z.string().min(1), weight: z.union([z.literal(0), z.literal(1)]).optional() })
  .strict();
const OutputLine = z.object({ role: z.literal('assistant'), content: z.string().min(1) }).strict();

export const FineTuneMessage = z.discriminatedUnion('role', [SystemLine, UserLine, AssistantLine]);
export type FineTuneMessage = z.infer<typeof FineTuneMessage>;

/** Prompt messages of a preference pair: no weights (nothing in the input is trained on). */
export const PromptMessage = z.discriminatedUnion('role', [SystemLine, UserLine, OutputLine]);
export type PromptMessage = z.infer<typeof PromptMessage>;

/** Supervised fine-tuning, chat format: the prompt, then the final decision as the trained assistant turn. */
export const SftLine = z
  .object({ messages: z.array(FineTuneMessage).min(2) })
  .strict()
  .superRefine((line, ctx) => {
    const first = line.messages[0];
    const last = line.messages.at(-1);
    if (first?.role === 'assistant') {
      ctx.addIssue({ code: 'custom', path: ['messages', 0], message: 'the conversation must start with a system or user message' });
    }
    if (last?.role !== 'assistant' || last.weight === 0) {
      ctx.addIssue({ code: 'custom', path: ['messages'], message: 'the last message must be the trained assistant turn' });
    }
  });
export type SftLine = z.infer<typeof SftLine>;

/** Preference pair, OpenAI DPO format: same prompt, the teacher's decision preferred over the student's. */
export const PreferenceLine = z
  .object({
    input: z.object({ messages: z.array(PromptMessage).min(1) }).strict(),
    preferred_output: z.array(OutputLine).length(1),
    non_preferred_output: z.array(OutputLine).length(1),
  })
  .strict()
  .superRefine((line, ctx) => {
    if (line.input.messages.at(-1)?.role !== 'user') {
      ctx.addIssue({ code: 'custom', path: ['input', 'messages'], message: 'the prompt must end with a user message' });
    }
    if (line.preferred_output[0]?.content === line.non_preferred_output[0]?.content) {
      ctx.addIssue({ code: 'custom', path: ['non_preferred_output'], message: 'preferred and non-preferred outputs are identical' });
    }
  });
export type PreferenceLine = z.infer<typeof PreferenceLine>;

// ---------------------------------------------------------------------------------------------
// Why an example did not become a line: counted, never silent.

export const LEARNING_SKIP_REASONS = [
  'duplicate',
  'no_final_decision',
  'shadow_round',
  'agreed',
  'no_student_candidate',
  'identical_outputs',
  'no_context',
  'invalid_line',
] as const;
export const LearningSkipReason = z.enum(LEARNING_SKIP_REASONS);
export type LearningSkipReason = z.infer<typeof LearningSkipReason>;

export const LEARNING_SKIP_LABELS = {
  duplicate: 'same example read twice',
  no_final_decision: 'no final decision',
  shadow_round: 'shadow round (its teacher decision is exported as a demonstration)',
  agreed: 'student and teacher agreed',
  no_student_candidate: 'no student output to reject',
  identical_outputs: 'student and teacher outputs identical',
  no_context: 'no prompt context recorded',
  invalid_line: 'line failed its format check',
} satisfies Record<LearningSkipReason, string>;

export const LearningSkipCounts = z.partialRecord(LearningSkipReason, z.number().int().positive());
export type LearningSkipCounts = z.infer<typeof LearningSkipCounts>;

/** A trace line that could not be read (not JSON, not a Steward event): skipped, reported with its place. */
export const TraceProblem = z.object({ file: z.string(), line: z.number().int().positive(), message: z.string() }).strict();
export type TraceProblem = z.infer<typeof TraceProblem>;

export const LearningExportSummary = z
  .object({
    format: LearningExportFormat,
    traces: z.number().int().nonnegative(),
    /** Distinct learning examples read. */
    examples: z.number().int().nonnegative(),
    written: z.number().int().nonnegative(),
    skipped: LearningSkipCounts,
    problems: z.array(TraceProblem),
  })
  .strict();
export type LearningExportSummary = z.infer<typeof LearningExportSummary>;
