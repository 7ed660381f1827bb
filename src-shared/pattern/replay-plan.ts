import { z } from 'zod';
import type { RunEvent } from '../contracts/events';
import { ModelScript } from '../contracts/script';
import { SupervisionSpec } from '../contracts/spec';
import { recordedScript } from '../replay/replay-script';
import { JudgmentRecord } from './contracts';

/**
 * What a recorded pattern node invocation gives its replay (issue 12): every member run's recorded
 * answers (by its tag, `draft#2`, with the task and supervision it ran with) and every judgment as
 * recorded (by its id, `p:j0.1.0.1`) — a person's included — so the replay repeats the run exactly:
 * the members answer as they did, the judges and the person judge as they did, nobody is asked.
 */
export const PatternReplay = z
  .object({
    kind: z.literal('pattern'),
    members: z.record(z.string(), z.object({ script: ModelScript, supervision: SupervisionSpec, task: z.string() }).strict()),
    judgments: z.record(z.string(), JudgmentRecord),
  })
  .strict();
export type PatternReplay = z.infer<typeof PatternReplay>;

/** A pattern invocation's own events (its agent.started read as run.started): does it hold a pattern's record? */
export function isPatternRecord(own: readonly RunEvent[]): boolean {
  return own.some((e) => e.pattern_member !== undefined || e.type === 'pattern.iteration' || e.type === 'pattern.judgment');
}

/** The replay of one pattern invocation from its own events, and where it cannot be exact. */
export function planPatternReplay(id: string, own: readonly RunEvent[]): { replay: PatternReplay; gaps: string[]; liveProblems: string[] } {
  const gaps: string[] = [];
  const liveProblems: string[] = [];
  const byMember = new Map<string, RunEvent[]>();
  for (const e of own) if (e.pattern_member !== undefined) byMember.set(e.pattern_member, [...(byMember.get(e.pattern_member) ?? []), e]);
  const members: PatternReplay['members'] = {};
  for (const [tag, events] of byMember) {
    const started = events.find((e) => e.type === 'run.started');
    if (started?.type !== 'run.started') continue;
    const recorded = recordedScript(events);
    gaps.push(...recorded.gaps.map((g) => `${id} ${tag}: ${g}`));
    liveProblems.push(...recorded.liveProblems.map((p) => `${id} ${tag}: ${p}`));
    members[tag] = { script: recorded.script, supervision: started.supervision, task: started.task };
  }
  const judgments: PatternReplay['judgments'] = {};
  for (const e of own) {
    if (e.type !== 'pattern.judgment') continue;
    judgments[e.judgment.id] = e.judgment;
    if (!e.judgment.verdict && e.judgment.caller.kind !== 'system' && e.judgment.answer === undefined) {
      gaps.push(`${id} judgment ${e.judgment.id}: its answer could not be used and was not stored; the replay gives back an answer that cannot be used either`);
    }
  }
  return { replay: { kind: 'pattern', members, judgments }, gaps, liveProblems };
}

/** A recorded judgment as the judge's answer again: the verdict it gave, citing what it cited; an unusable one stays unusable. */
export function recordedAnswer(record: JudgmentRecord): unknown {
  const v = record.verdict;
  // The unusable answer as the judge gave it: verified again, it fails the same way.
  if (!v && record.answer !== undefined) return record.answer;
  if (!v) return `(the recorded answer could not be used: ${record.verification.ok ? 'it gave no verdict' : record.verification.problem})`;
  switch (v.verdict) {
    case 'approved':
      return { verdict: 'approved', evidence: v.evidence };
    case 'rejected':
      return { verdict: 'rejected', feedback: v.feedback, evidence: v.evidence };
    case 'escalated':
      return { verdict: 'escalated', reason: v.reason };
  }
}
