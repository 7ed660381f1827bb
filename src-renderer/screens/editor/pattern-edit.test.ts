import { describe, expect, it } from 'vitest';
import { PatternNode } from '@shared/workflow/document';
import { presetPatternNode } from '@shared/workflow/pattern-preset-node';
import { addMember, callerOf, judgeProfiles, removeMember, renameMember, triggerOf, withPreset } from './pattern-edit';

const supervisor = () => ({ ...presetPatternNode('review', 'SUPERVISOR'), label: 'Review', task: 'Write the report on {{topic}}', inputs: [{ name: 'topic', type: 'text' as const, required: true }] });

describe('editing a pattern node', () => {
  it('another type starts from its preset and keeps the node’s place in the workflow (id, label, task, inputs)', () => {
    const debate = withPreset(supervisor(), 'DEBATE');
    expect(debate).toMatchObject({ id: 'review', label: 'Review', type: 'DEBATE', task: 'Write the report on {{topic}}', inputs: [{ name: 'topic' }] });
    expect(debate.members.map((m) => m.id)).toEqual(['proponent', 'opponent', 'judge']);
    expect(PatternNode.safeParse(debate).success).toBe(true);
  });

  it('a renamed member stays cited and keeps judging; a removed one is let go of everywhere', () => {
    const renamed = renameMember(supervisor(), 'worker', 'writer');
    expect(renamed.judgment.verifier.must_cite).toEqual(['writer']);
    expect(PatternNode.safeParse(renamed).success).toBe(true);
    const judgeRenamed = renameMember(supervisor(), 'supervisor', 'lead');
    expect(judgeRenamed.judgment.callers[0]).toMatchObject({ as_member: 'lead' });
    const added = addMember(supervisor());
    const removed = removeMember(added, 'supervisor');
    expect(removed.members.map((m) => m.id)).toEqual(['worker', 'member-3']);
    expect(removed.judgment.callers).toEqual([{ kind: 'llm', profile: 'default' }]);
    expect(PatternNode.safeParse(removed).success).toBe(true);
  });

  it('a new member is valid at once, with a free id and the models of the last one', () => {
    const node = addMember(supervisor());
    expect(node.members.at(-1)).toMatchObject({ id: 'member-3', role: 'member', models: node.members[1]?.models });
    expect(PatternNode.safeParse(node).success).toBe(true);
  });

  it('a trigger keeps its threshold or n; a person caller escalates at its expiry by default; every judge profile needs a model', () => {
    expect(triggerOf('below_confidence', { kind: 'always' })).toEqual({ kind: 'below_confidence', threshold: 0.8 });
    expect(triggerOf('every_n', { kind: 'every_n', n: 4 })).toEqual({ kind: 'every_n', n: 4 });
    expect(callerOf('human')).toEqual({ kind: 'human', fallback: { kind: 'escalate' } });
    const node = supervisor();
    const withPerson = { ...node, judgment: { ...node.judgment, callers: [...node.judgment.callers, { kind: 'human' as const, expiry_seconds: 600, fallback: { kind: 'llm' as const, profile: 'backup' } }] } };
    expect(judgeProfiles(withPerson)).toEqual(['default', 'backup']);
    expect(PatternNode.safeParse(withPerson).success).toBe(true);
  });
});
