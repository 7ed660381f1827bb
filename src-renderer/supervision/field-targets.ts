import { fieldDomId } from '../components/Form';

/** The panel's advanced groups, in seed 000's order. */
export const ADVANCED_GROUPS = ['models', 'rules', 'handover', 'tools', 'trace', 'synthesis', 'deployment', 'runtime'] as const;
export type AdvancedGroup = (typeof ADVANCED_GROUPS)[number];

export const ADVANCED_GROUP_LABELS = {
  models: 'Teacher / Student settings',
  rules: 'Review rules',
  handover: 'Handover',
  tools: 'Tool safety',
  trace: 'Trace / privacy',
  synthesis: 'Synthesis',
  deployment: 'Deployment',
  runtime: 'Runtime',
} satisfies Record<AdvancedGroup, string>;

export interface FieldTarget {
  /** The accordion to open first (none: the control is always visible). */
  group?: AdvancedGroup;
  /** DOM id of the control to scroll to and focus. */
  id: string;
  /** What the link says: the field as a person finds it in the panel. */
  label: string;
}

/** Validation field (a dotted path into the spec) → the control that sets it. Longest prefix wins. */
const TARGETS: readonly [prefix: string, target: FieldTarget][] = [
  ['models.student', { id: fieldDomId('models.student'), label: 'Model roles › Student model' }],
  ['models.teacher', { id: fieldDomId('models.teacher'), label: 'Model roles › Teacher model' }],
  ['models.student.api_key', { group: 'models', id: fieldDomId('models.student.api_key'), label: 'Teacher / Student settings › Student API key' }],
  ['models.teacher.api_key', { group: 'models', id: fieldDomId('models.teacher.api_key'), label: 'Teacher / Student settings › Teacher API key' }],
  ['supervision', { id: fieldDomId('supervision.phase'), label: 'Operating mode' }],
  ['supervision.enabled', { id: fieldDomId('supervision.enabled'), label: 'Enable supervision and learning' }],
  ['supervision.phase', { id: fieldDomId('supervision.phase'), label: 'Operating mode › Lifecycle phase' }],
  ['supervision.rules', { group: 'rules', id: fieldDomId('supervision.rules.validation_failed'), label: 'Review rules' }],
  ['supervision.rules.sample_rate', { group: 'rules', id: fieldDomId('supervision.rules.sample_rate'), label: 'Review rules › Sample rate' }],
  ['supervision.rules.sample_seed', { group: 'rules', id: fieldDomId('supervision.rules.sample_seed'), label: 'Review rules › Sample seed' }],
  ['supervision.rules.complete', { group: 'rules', id: fieldDomId('supervision.rules.complete'), label: 'Review rules › Review finishes' }],
  ['supervision.rules.tools', { group: 'rules', id: fieldDomId('supervision.rules.tools'), label: 'Review rules › Always review these tools' }],
  ['supervision.rules.min_confidence', { group: 'rules', id: fieldDomId('supervision.rules.min_confidence'), label: 'Review rules › Minimum confidence' }],
  ['supervision.max_repair_rounds', { group: 'rules', id: fieldDomId('supervision.max_repair_rounds'), label: 'Review rules › Student repairs' }],
  ['supervision.max_verdict_attempts', { group: 'handover', id: fieldDomId('supervision.max_verdict_attempts'), label: 'Handover › Verdict attempts' }],
  ['supervision.on_block', { group: 'handover', id: fieldDomId('supervision.on_block'), label: 'Handover › On block' }],
  ['supervision.safe_message', { group: 'handover', id: fieldDomId('supervision.safe_message'), label: 'Handover › Safe message' }],
  ['supervision.on_escalate', { group: 'handover', id: fieldDomId('supervision.on_escalate'), label: 'Handover › On escalation' }],
  ['supervision.takeover_rounds', { group: 'handover', id: fieldDomId('supervision.takeover_rounds'), label: 'Handover › Takeover rounds' }],
  ['tool_effects', { group: 'tools', id: fieldDomId('tool_effects'), label: 'Tool safety' }],
  ['servers', { group: 'tools', id: fieldDomId('tool_effects'), label: 'Tool safety › Servers' }],
  ['script', { group: 'runtime', id: fieldDomId('runtime'), label: 'Runtime › Replay script' }],
  ['script_file', { group: 'runtime', id: fieldDomId('runtime'), label: 'Runtime › Replay script' }],
  ['instructions', { group: 'runtime', id: fieldDomId('runtime'), label: 'Runtime › Instructions' }],
  ['task', { group: 'runtime', id: fieldDomId('runtime'), label: 'Runtime › Task' }],
  ['workspace', { group: 'runtime', id: fieldDomId('runtime'), label: 'Runtime › Workspace' }],
  ['limits', { group: 'runtime', id: fieldDomId('runtime'), label: 'Runtime › Limits' }],
  ['limits.max_rounds', { group: 'runtime', id: fieldDomId('limits.max_rounds'), label: 'Runtime › Round limit' }],
  ['limits.decision_timeout_ms', { group: 'runtime', id: fieldDomId('limits.decision_timeout_ms'), label: 'Runtime › Decision timeout' }],
  ['limits.max_output_tokens', { group: 'runtime', id: fieldDomId('limits.max_output_tokens'), label: 'Runtime › Model reply bound' }],
  ['synthesis', { group: 'synthesis', id: fieldDomId('synthesis'), label: 'Synthesis' }],
  ['synthesis.voice', { group: 'synthesis', id: fieldDomId('synthesis.voice'), label: 'Synthesis › Voice' }],
  ['synthesis.rate', { group: 'synthesis', id: fieldDomId('synthesis.rate'), label: 'Synthesis › Rate' }],
  ['synthesis.speak', { group: 'synthesis', id: fieldDomId('synthesis.speak'), label: 'Synthesis › Speak' }],
];

const FALLBACK: FieldTarget = { id: fieldDomId('supervision.phase'), label: 'Configuration' };

export function fieldTarget(field: string): FieldTarget {
  let best: FieldTarget | undefined;
  let bestLength = -1;
  for (const [prefix, target] of TARGETS) {
    const matches = field === prefix || field.startsWith(`${prefix}.`);
    if (matches && prefix.length > bestLength) {
      best = target;
      bestLength = prefix.length;
    }
  }
  return best ?? FALLBACK;
}
