/**
 * The feedback loop's prompts (seed 002): a rejection is feedback, not failure. The members'
 * next prompt and the judge's prompt both carry "Previous feedback (address this):" so the agents
 * fix what was wrong and the judge checks that they did.
 */

export const FEEDBACK_HEADING = 'Previous feedback (address this):';

export interface MemberPromptInput {
  task: string;
  iteration: number;
  feedback?: string;
  /** The output the feedback is about (the previous iteration's). */
  previous_output?: string;
}

export function memberPrompt(p: MemberPromptInput): string {
  const parts = [p.task];
  if (p.feedback !== undefined) parts.push(FEEDBACK_HEADING, p.feedback);
  if (p.previous_output !== undefined) parts.push('Previous output:', p.previous_output);
  parts.push(`Iteration: ${p.iteration}`);
  return parts.join('\n');
}

export interface JudgmentPromptInput {
  feedback?: string;
  /** The new output under judgment. */
  output: string;
  iteration: number;
}

/** The seed's shape: the previous feedback, the new work output, the iteration number. */
export function judgmentPrompt(p: JudgmentPromptInput): string {
  const parts = p.feedback !== undefined ? [FEEDBACK_HEADING, p.feedback] : [];
  parts.push('Work output:', p.output, `Iteration: ${p.iteration}`);
  return parts.join('\n');
}
