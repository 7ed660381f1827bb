import { PatternSettings, type JudgmentSettingsInput, type MemberOutput, type PatternMember, type PatternSettingsInput } from '../contracts';
import type { PatternInput } from '../machine';

/** Scripted answers at the model boundary (test doubles for the members and the judges), and settings to run them under. */

const MEMBERS: PatternMember[] = [
  { id: 'supervisor', role: 'supervisor', instructions: 'Review the work.' },
  { id: 'worker', role: 'worker', instructions: 'Do the work.' },
];

export function patternInput(over: Partial<Omit<PatternSettingsInput, 'judgment'>> & { judgment?: Partial<JudgmentSettingsInput> } = {}): PatternInput {
  const { judgment, ...rest } = over;
  const settings = PatternSettings.parse({
    type: 'SUPERVISOR',
    members: MEMBERS,
    max_iterations: 2,
    ...rest,
    judgment: { callers: [{ kind: 'llm', profile: 'judge-model', as_member: 'supervisor' }], verifier: { must_cite: [] }, ...judgment },
  });
  return { settings, task: 'Write the incident report.', id_prefix: 'node-1' };
}

export const PIPELINE_MEMBERS: PatternMember[] = [
  { id: 'draft', role: 'drafter', instructions: 'Draft.' },
  { id: 'final', role: 'editor', instructions: 'Finish.' },
];

/** What the scripted members answer in a step and iteration: one output per member, ids that say where they came from. */
export function membersAnswer(step: number, iteration: number, members: readonly PatternMember[], confidence?: number) {
  const outputs: MemberOutput[] = members.map((m) => ({ id: `o${step}.${iteration}.${m.id}`, member_id: m.id, text: `${m.id} wrote v${iteration}` }));
  return { outputs, output: `result of step ${step} iteration ${iteration}`, ...(confidence === undefined ? {} : { confidence }) };
}

export const MALFORMED_DISPATCH = { outputs: [], output: 'nothing' };

/** The judges' answers, citing the outputs of the iteration they judge. */
export const judgeAnswers = (cite: string[]) => ({
  approved: { verdict: 'approved', evidence: cite },
  rejected: { verdict: 'rejected', feedback: `fix ${cite[0] ?? 'it'}`, evidence: cite },
  escalated: { verdict: 'escalated', reason: 'a person must decide' },
  free_text: 'Looks good to me, approved.',
  bad_citation: { verdict: 'approved', evidence: ['o-does-not-exist'] },
});
export type JudgeAnswerName = keyof ReturnType<typeof judgeAnswers>;

export const AT = { started_at: '2026-12-01T10:00:00.000Z', ended_at: '2026-12-01T10:00:01.000Z' };
