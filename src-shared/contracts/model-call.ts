import { z } from 'zod';
import { ModelUsage } from './model';

/**
 * What kinds of a run's data a prompt held, as the prompt builder put them in (never the data
 * itself): the privacy log's record of which provider saw what (DESIGN.md §4).
 */
export const DATA_CATEGORIES = [
  'instructions',
  'task',
  'offered_tools',
  'history',
  'tool_results',
  'user_answers',
  'feedback',
  'candidate',
  'validation',
  'phase_plan',
  'round_facts',
  'recent_events',
  /** A workflow supervisor's escalation: the failed node, its redacted failure, the allowed actions. */
  'escalation',
  /** A prompt its caller did not itemise. */
  'prompt',
] as const;
export const DataCategory = z.enum(DATA_CATEGORIES);
export type DataCategory = z.infer<typeof DataCategory>;

export const DATA_CATEGORY_LABELS = {
  instructions: 'instructions',
  task: 'task',
  offered_tools: 'offered tools',
  history: 'canonical history (committed decisions)',
  tool_results: 'tool results (workspace content)',
  user_answers: "the user's answers",
  feedback: 'feedback on the previous answer',
  candidate: "the student's candidate",
  validation: 'validation results',
  phase_plan: 'the phase plan',
  round_facts: 'round summaries',
  recent_events: 'recent events (summarised)',
  escalation: "a failed node's escalation (redacted)",
  prompt: 'a prompt (not itemised)',
} satisfies Record<DataCategory, string>;

/**
 * Who in the run made the call: the boundary's roles, SCS's committee and monitor, a workflow's
 * supervisor, or a pattern node's judge (`judge` since issue 31; older runs recorded a judge's call as `teacher`).
 */
export const ModelCaller = z.enum(['student', 'teacher', 'committee', 'monitor', 'supervisor', 'judge']);
export type ModelCaller = z.infer<typeof ModelCaller>;

/** What the call was for: a proposal, the student's shadow proposal (phase 1), a review, an SCS plan or gate. */
export const ModelCallPurpose = z.enum(['propose', 'shadow', 'review', 'plan', 'gate', 'other']);
export type ModelCallPurpose = z.infer<typeof ModelCallPurpose>;

/** What the call site knows about a call (carried on the request; providers ignore it). */
export const ModelCallInfo = z
  .object({
    caller: ModelCaller,
    purpose: ModelCallPurpose,
    /** Sorted, each once. */
    data: z.array(DataCategory),
    round: z.number().int().nonnegative().optional(),
    /** SCS phase of a committee or monitor call. */
    phase: z.number().int().nonnegative().optional(),
  })
  .strict();
export type ModelCallInfo = z.infer<typeof ModelCallInfo>;

/** One model call as the privacy log records it: categories, size and place, never content. */
export const ModelCalled = ModelCallInfo.extend({
  /** The model's label, e.g. "ollama:qwen3:4b" or "replay". */
  model: z.string(),
  provider: z.enum(['script', 'ollama', 'openai_compatible']),
  /** Sent to this machine (loopback, or a replay script). */
  local: z.boolean(),
  /** `name[:port]` of another machine: never user info, path or query. */
  host: z.string().optional(),
  /** UTF-8 bytes of the request's messages, tool definitions and output schema as JSON. */
  bytes: z.number().int().nonnegative(),
  /** 1 for the first call, 2 for its first retry… */
  attempt: z.number().int().positive(),
}).strict();
export type ModelCalled = z.infer<typeof ModelCalled>;

/** The categories in one canonical order, each once. */
export function dataCategories(found: Iterable<DataCategory>): DataCategory[] {
  const set = new Set(found);
  return DATA_CATEGORIES.filter((c) => set.has(c));
}

/**
 * How a call that reached the provider ended (issue 31: what supervision cost): written when the
 * call settles, next to its `model.called`. The tokens the server reported (each absent when it did
 * not say: never guessed) and how long the call took. Absent in runs recorded before it existed:
 * their tokens are "not recorded", never 0.
 */
export const ModelAnswered = ModelCallInfo.extend({
  model: z.string(),
  local: z.boolean(),
  attempt: z.number().int().positive(),
  /** false: the call failed (an error, a reply cut at its output bound); its usage, when the server reported one, was still billed. */
  ok: z.boolean(),
  usage: ModelUsage.optional(),
  latency_ms: z.number().int().nonnegative(),
}).strict();
export type ModelAnswered = z.infer<typeof ModelAnswered>;
