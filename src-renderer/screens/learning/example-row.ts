import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import type { HostedExample } from '@shared/contracts/host-api';
import type { LearningExample } from '@shared/contracts/learning-export';
import type { EncodedPrompt } from '@shared/learning/learning-context';
import { learningExampleFromEvent } from '@shared/learning/export-formats';

/**
 * A learning example as the Learning list shows it: the fields an export's example has, its prompt as
 * its event encodes it (whole, or a reference to an earlier example's and what is new: rebuilt by the
 * host when the example is opened), and `seq` (its event's).
 */
export type LearningExampleRow = Omit<LearningExample, 'context'> & EncodedPrompt & { seq: number };

const isExample = (e: RunEvent): e is RunEventOf<'learning.example'> => e.type === 'learning.example';

/** One example as the host listed it. */
export function exampleRow(hosted: HostedExample): LearningExampleRow | undefined {
  const e = hosted.event;
  if (!isExample(e)) return undefined;
  return {
    id: e.id,
    run_id: e.run_id,
    seq: e.seq,
    ...(e.invocation_id !== undefined ? { invocation_id: e.invocation_id } : {}),
    ...(hosted.spec_id !== undefined ? { spec_id: hosted.spec_id } : {}),
    ts: e.ts,
    round: e.round,
    kind: e.kind,
    context: e.context,
    ...(e.context_ref !== undefined ? { context_ref: e.context_ref } : {}),
    ...(e.context_head !== undefined ? { context_head: e.context_head } : {}),
    ...(e.rule !== undefined ? { rule: e.rule } : {}),
    ...(e.student_candidate !== undefined ? { student_candidate: e.student_candidate } : {}),
    ...(e.verdict !== undefined ? { verdict: e.verdict } : {}),
    ...(e.final_decision !== undefined ? { final_decision: e.final_decision } : {}),
    reason_codes: e.reason_codes,
    agreement: e.agreement,
    models: e.models,
  };
}

/** An example with its whole prompt, as the export writes it (none when the host could not rebuild it: the export skips it, saying why). */
export function wholeExample(hosted: HostedExample): LearningExample | undefined {
  const e = hosted.event;
  // The CLI's export makes its examples the same way (a trace's events), so both write the same lines.
  return isExample(e) ? learningExampleFromEvent(e, hosted.spec_id, hosted.context) : undefined;
}
