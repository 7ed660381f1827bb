import { DeploymentSettings, LearningDataSettings, TraceSettings, type Profile } from './profiles';
import { SupervisionSpec, PHASE_LABELS, type LifecyclePhase } from './spec';

/**
 * The profiles every workspace starts with, shipped with the app. They are read-only (issue 10):
 * a person duplicates one to change it, so "Risk-gated (default) v1" means the same everywhere. Their
 * ids live here, in the shared layer, so the host refuses a version saved under one of them too.
 *
 * Their settings are the demo spec's own (resources/examples/notes-assistant.json: supervision on,
 * phase 3, on_block fail, every other field at its documented default), plus a few common
 * variations, so the demo behaves exactly as its file says until someone picks another profile.
 */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type BuiltinProfileInput = DistributiveOmit<Profile, 'id' | 'version' | 'created_at'>;

const { phase: _phase, ...DEMO_SUPERVISION } = SupervisionSpec.parse({ enabled: true, phase: 3, on_block: 'fail' });

function deployment(phase: LifecyclePhase) {
  return DeploymentSettings.parse({ phase });
}

export const BUILTIN_PROFILES: readonly { id: string; profile: BuiltinProfileInput }[] = [
  {
    id: 'replay-student',
    profile: { kind: 'student', name: 'Replay student', description: 'Scripted responses from the workflow file (the demo’s test double). No model server needed.', model: { provider: 'script' } },
  },
  {
    id: 'replay-teacher',
    profile: { kind: 'teacher', name: 'Replay teacher', description: 'Scripted verdicts from the workflow file. No model server needed.', model: { provider: 'script' } },
  },
  {
    id: 'risk-gated',
    profile: {
      kind: 'supervision',
      name: 'Risk-gated (default)',
      description: 'The demo’s settings: protected effects and invalid decisions go to the teacher; a block fails the run; an escalation hands 3 rounds to the teacher.',
      supervision: DEMO_SUPERVISION,
    },
  },
  {
    id: 'fully-gated',
    profile: {
      kind: 'supervision',
      name: 'Fully gated',
      description: 'Strict rules: finishes and low-confidence decisions are reviewed too, 1 in 5 other decisions is audited, and a block asks you.',
      supervision: { ...DEMO_SUPERVISION, rules: { ...DEMO_SUPERVISION.rules, complete: true, min_confidence: 0.7, sample_rate: 0.2 }, on_block: 'ask_user' },
    },
  },
  {
    id: 'ask-a-human',
    profile: {
      kind: 'supervision',
      name: 'Ask me on escalation',
      description: 'As the default, but when the teacher escalates, the run waits for you to decide in the app.',
      supervision: { ...DEMO_SUPERVISION, on_escalate: 'human' },
    },
  },
  {
    id: 'keep-everything',
    profile: { kind: 'trace', name: 'Keep everything', description: 'Every event with tool results, kept until you delete it.', trace: TraceSettings.parse({}) },
  },
  {
    id: 'lean-trace',
    profile: { kind: 'trace', name: 'Lean trace (30 days)', description: 'Tool results replaced by their size; a run is deleted 30 days after it ended (from the host’s history and every browser).', trace: TraceSettings.parse({ include_tool_results: false, retention_days: 30 }) },
  },
  {
    id: 'record-all-learning',
    profile: { kind: 'learning_data', name: 'Record all learning', description: 'Reviews, shadow comparisons and teacher demonstrations all become learning examples.', learning: LearningDataSettings.parse({}) },
  },
  {
    id: 'no-learning',
    profile: { kind: 'learning_data', name: 'Record no learning data', description: 'No learning examples; the trace still records every verdict.', learning: LearningDataSettings.parse({ record: false, kinds: [] }) },
  },
  ...([3, 2, 0, 1, 4] as const).map((phase) => ({
    id: `phase-${phase}`,
    profile: {
      kind: 'deployment' as const,
      name: `Phase ${phase} · ${PHASE_LABELS[phase].toLowerCase()}`,
      description: 'Lifecycle phase, and when Learning suggests promoting or demoting it (you apply a suggestion, nothing changes by itself).',
      deployment: deployment(phase),
    },
  })),
];

const BUILTIN_IDS: ReadonlySet<string> = new Set(BUILTIN_PROFILES.map((b) => b.id));

/** A shipped profile's id: no version of it is ever saved by a person (Duplicate makes a new id). */
export function isBuiltinProfileId(id: string): boolean {
  return BUILTIN_IDS.has(id);
}

/** Names compare as a person reads them: case, surrounding and repeated spaces do not make two names different. */
export function profileNameKey(name: string): string {
  return name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}
