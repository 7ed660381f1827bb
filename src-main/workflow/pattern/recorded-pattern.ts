import type { JudgeAnswer, JudgeInput, WaitingFor } from '@shared/pattern/machine';
import { recordedAnswer, type PatternReplay } from '@shared/pattern/replay-plan';
import type { HumanJudgment } from './judge-human';

/**
 * A pattern node replayed from its recorded run (issue 12): each member run answers with its own
 * recorded answers, each judge — a person included — gives back the judgment recorded under the same
 * id. A replay that goes another way (a member got another task, a judgment the record has not) is
 * a mismatch: the node fails `replay_mismatch` rather than judging anything afresh.
 */
export class RecordedPattern {
  /** The first way the replay left the record, if it did. */
  mismatch: string | undefined;

  constructor(
    private readonly invocationId: string,
    private readonly record: PatternReplay,
  ) {}

  private miss(message: string): Error {
    this.mismatch ??= message;
    return new Error(message);
  }

  /** The member run's recorded answers, when it got the task it had then. */
  member(tag: string, task: string): PatternReplay['members'][string] {
    const recorded = Object.hasOwn(this.record.members, tag) ? this.record.members[tag] : undefined;
    if (!recorded) throw this.miss(`the recorded run of ${this.invocationId} has no member run ${tag}: the replay has no answers for it`);
    if (recorded.task !== task) throw this.miss(`${this.invocationId} ${tag} got another task than in the recorded run, so its recorded answers do not apply`);
    return recorded;
  }

  /** A model judge: the verdict recorded under this judgment's id. */
  judge(input: JudgeInput): JudgeAnswer {
    const record = Object.hasOwn(this.record.judgments, input.judgment_id) ? this.record.judgments[input.judgment_id] : undefined;
    if (!record || record.caller.kind !== (input.caller.kind === 'a2a' ? 'a2a' : 'llm')) throw this.miss(`the recorded run of ${this.invocationId} has no ${input.caller.kind === 'a2a' ? 'A2A' : 'model'} judgment ${input.judgment_id}`);
    const now = new Date().toISOString();
    // The recorded caller again (the model, the agent card as it was then): the replay's audit says who judged.
    return { answer: recordedAnswer(record), started_at: now, ended_at: now, caller: record.caller };
  }

  /**
   * A person's judgment: their recorded answer, by the same person. Not answered in the record (the
   * system escalated at the expiry, or the fallback judged): it expires again, as it did.
   */
  human(waiting: WaitingFor): HumanJudgment {
    const id = waiting.judgment_id;
    const record = Object.hasOwn(this.record.judgments, id) ? this.record.judgments[id] : undefined;
    const now = new Date().toISOString();
    if (record?.caller.kind === 'human') {
      return { kind: 'answered', answer: recordedAnswer(record), started_at: now, ended_at: now, ...(record.caller.who !== undefined ? { who: record.caller.who } : {}) };
    }
    if (record?.caller.kind === 'system' || Object.hasOwn(this.record.judgments, `${id}f`)) return { kind: 'expired', at: now };
    throw this.miss(`the recorded run of ${this.invocationId} has no answer to the person's judgment ${id}`);
  }
}
