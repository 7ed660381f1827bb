import type { ModelRef } from '../contracts/model';
import type { PatternType } from '../pattern/contracts';
import { PATTERN_PRESETS } from '../pattern/presets';
import { PatternNode } from './document';

/**
 * A new pattern node with its type's preset (members, judgment, the pattern's own reviewer as the
 * judge): what the editor's palette drops and examples start from. Every judge profile of the
 * preset names `judgeModel` (the replay script unless given).
 */
export function presetPatternNode(id: string, type: PatternType, options: { task?: string; judgeModel?: ModelRef } = {}): PatternNode {
  const { settings } = PATTERN_PRESETS[type];
  const profiles = settings.judgment.callers.flatMap((c) => (c.kind === 'llm' ? [c.profile] : []));
  return PatternNode.parse({
    id,
    kind: 'pattern',
    type,
    task: options.task ?? '{{task}}',
    inputs: [{ name: 'task', type: 'text' }],
    members: settings.members,
    max_iterations: settings.max_iterations,
    on_exhaustion: settings.on_exhaustion,
    judgment: settings.judgment,
    judge_models: Object.fromEntries(profiles.map((p) => [p, options.judgeModel ?? { provider: 'script' }])),
  });
}
