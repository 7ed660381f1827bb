import { judgingMembers, PatternSettings, type JudgmentPlacement, type PatternMember, type PatternType } from './contracts';

/**
 * The three defaults (seed 002): each pattern has a natural judgment, so no `mode` is needed.
 * SUPERVISOR's review is the judgment (the supervisor judges), DEBATE's judge is the judgment (the
 * judge decides convergence with evidence), PIPELINE judges after each step (a quality gate).
 */

export interface PatternPreset {
  placement: JudgmentPlacement;
  /** The member role whose review is the judgment, if the pattern has one. */
  reviewer?: string;
  summary: string;
  settings: PatternSettings;
}

const member = (id: string, role: string, instructions: string): PatternMember => ({ id, role, instructions });

export const PATTERN_PRESETS = {
  SUPERVISOR: {
    placement: 'after_pattern',
    reviewer: 'supervisor',
    summary: 'Workers do the task; the supervisor’s review is the judgment and its feedback goes back to them.',
    settings: PatternSettings.parse({
      type: 'SUPERVISOR',
      members: [
        member('supervisor', 'supervisor', 'Review the workers’ output against the task; cite the outputs you judge.'),
        member('worker', 'worker', 'Do the task; address any previous feedback.'),
      ],
      judgment: { callers: [{ kind: 'llm', profile: 'default', as_member: 'supervisor' }], verifier: { must_cite: ['worker'] } },
    }),
  },
  DEBATE: {
    placement: 'after_pattern',
    reviewer: 'judge',
    summary: 'Two sides argue; the judge’s decision is the judgment, with the arguments as evidence.',
    settings: PatternSettings.parse({
      type: 'DEBATE',
      members: [
        member('proponent', 'proponent', 'Argue for the position; answer the other side.'),
        member('opponent', 'opponent', 'Argue against the position; answer the other side.'),
        member('judge', 'judge', 'Decide whether the debate has converged on a sound answer; cite both sides.'),
      ],
      judgment: { callers: [{ kind: 'llm', profile: 'default', as_member: 'judge' }], verifier: { min_citations: 2, must_cite: ['proponent', 'opponent'] } },
    }),
  },
  PIPELINE: {
    placement: 'after_each_step',
    summary: 'Steps run in order; a quality gate judges each step before the next one starts.',
    settings: PatternSettings.parse({
      type: 'PIPELINE',
      members: [
        member('draft', 'drafter', 'Write the first draft.'),
        member('review', 'reviewer', 'Improve the draft; list what you changed.'),
        member('final', 'editor', 'Produce the final text.'),
      ],
      judgment: { callers: [{ kind: 'llm', profile: 'default' }] },
    }),
  },
} as const satisfies Record<PatternType, PatternPreset>;

/** Where the judgment sits unless the node says otherwise. */
export function placementOf(settings: PatternSettings): JudgmentPlacement {
  return settings.judgment.placement ?? PATTERN_PRESETS[settings.type].placement;
}

/** The members that do the work: everyone but the pattern's own judge in default mode. */
export function dispatchedMembers(settings: PatternSettings): PatternMember[] {
  const judges = judgingMembers(settings.judgment);
  return settings.members.filter((m) => !judges.has(m.id));
}

/** Route: the judged units, in order. A PIPELINE judged after each step has one unit per member. */
export function stepsOf(settings: PatternSettings): PatternMember[][] {
  const members = dispatchedMembers(settings);
  return placementOf(settings) === 'after_each_step' ? members.map((m) => [m]) : [members];
}
