import type { ModelCaller } from './model-call';

/**
 * The most output tokens one model call may produce (issue 27), sent with every request in the
 * provider's dialect (OpenAI's `max_completion_tokens`/`max_tokens`, Ollama's `num_predict`), so a
 * model that pads or rambles is stopped by its server, and billed no further. Without it a priced
 * model's cost has no ceiling: the workflow supervisor's cap reserves its worst case from
 * `max_output_tokens` in its settings; the other callers use these bounds.
 *
 * Each is sized to the largest answer its schema allows, with room for a model that thinks first
 * (a thinking model's reasoning counts against the bound): a reply cut at the bound is never used.
 */
export const OUTPUT_TOKEN_BOUNDS = {
  /** A proposal (student, shadow, or a teacher taking over): a tool call may carry a file's content. */
  student: 8192,
  /** A review verdict: a 600-character explanation, and a replacement decision with its arguments. */
  teacher: 4096,
  /** A phase plan: goal, up to 6 steps, 10 criteria, 10 stop conditions (400 characters each), tools. */
  committee: 4096,
  /** A gate decision: a 600-character reason and its evidence. */
  monitor: 2048,
  /** A pattern judge's verdict: feedback up to 8,000 characters and 50 cited ids. */
  judge: 4096,
} as const satisfies Record<Exclude<ModelCaller, 'supervisor'> | 'judge', number>;

/** The bound of a proposal by either role (the teacher takes over with the student's kind of answer). */
export const PROPOSAL_OUTPUT_TOKENS = OUTPUT_TOKEN_BOUNDS.student;
