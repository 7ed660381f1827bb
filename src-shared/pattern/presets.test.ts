import { describe, expect, it } from 'vitest';
import { PATTERN_TYPES, PatternSettings } from './contracts';
import { dispatchedMembers, PATTERN_PRESETS, placementOf, stepsOf } from './presets';

describe('the three default patterns', () => {
  it('every preset is a valid pattern node of its own type', () => {
    for (const type of PATTERN_TYPES) {
      const preset = PATTERN_PRESETS[type];
      expect(PatternSettings.parse(preset.settings)).toEqual(preset.settings);
      expect(preset.settings.type).toBe(type);
      expect(placementOf(preset.settings)).toBe(preset.placement);
    }
  });

  it('SUPERVISOR’s review is the judgment: the supervisor judges and does not dispatch', () => {
    const s = PATTERN_PRESETS.SUPERVISOR.settings;
    expect(s.judgment.callers).toEqual([{ kind: 'llm', profile: 'default', as_member: 'supervisor' }]);
    expect(dispatchedMembers(s).map((m) => m.id)).toEqual(['worker']);
    expect(stepsOf(s)).toHaveLength(1);
  });

  it('DEBATE’s judge is the judgment and must cite both sides', () => {
    const s = PATTERN_PRESETS.DEBATE.settings;
    expect(dispatchedMembers(s).map((m) => m.id)).toEqual(['proponent', 'opponent']);
    expect(s.judgment.verifier.must_cite).toEqual(['proponent', 'opponent']);
  });

  it('PIPELINE judges after each step: one judged unit per member, in order', () => {
    expect(stepsOf(PATTERN_PRESETS.PIPELINE.settings).map((step) => step.map((m) => m.id))).toEqual([['draft'], ['review'], ['final']]);
  });

  it('post_step keeps the pattern’s own reviewer working and adds a separate judgment: two levels', () => {
    const base = PATTERN_PRESETS.SUPERVISOR.settings;
    const s = PatternSettings.parse({ ...base, judgment: { ...base.judgment, mode: 'post_step', callers: [{ kind: 'llm', profile: 'validator' }] } });
    expect(dispatchedMembers(s).map((m) => m.id)).toEqual(['supervisor', 'worker']);
  });

  it('refuses a node whose members all judge, a judge that is not a member, and per-step judgment outside a PIPELINE', () => {
    const base = PATTERN_PRESETS.SUPERVISOR.settings;
    expect(PatternSettings.safeParse({ ...base, members: [base.members[0]] }).success).toBe(false);
    expect(PatternSettings.safeParse({ ...base, judgment: { ...base.judgment, callers: [{ kind: 'llm', profile: 'x', as_member: 'nobody' }] } }).success).toBe(false);
    expect(PatternSettings.safeParse({ ...base, judgment: { ...base.judgment, placement: 'after_each_step' } }).success).toBe(false);
  });
});
