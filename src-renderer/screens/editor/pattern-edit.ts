import type { JudgmentCaller, JudgmentTrigger, PatternType } from '@shared/pattern/contracts';
import type { NodeOf, PatternMemberAgent } from '@shared/workflow/document';
import { presetPatternNode } from '@shared/workflow/pattern-preset-node';

/** Pure edits of a pattern node in the editor (PatternSection): each returns the whole new node. */

export type Pattern = NodeOf<'pattern'>;

/**
 * Another type starts from that type's preset (its members and its judgment, seed 002's default),
 * keeping what the node is in the workflow: id, label, position, name, task, inputs, servers.
 */
export function withPreset(node: Pattern, type: PatternType): Pattern {
  const preset = presetPatternNode(node.id, type);
  return {
    ...preset,
    label: node.label,
    position: node.position,
    name: node.name,
    task: node.task,
    inputs: node.inputs,
    servers: node.servers,
  };
}

/** A new member like the last one (same models and review rules), with a free id. */
export function addMember(node: Pattern): Pattern {
  const ids = new Set(node.members.map((m) => m.id));
  let n = node.members.length + 1;
  while (ids.has(`member-${n}`)) n += 1;
  const like = node.members.at(-1);
  const member = { ...(like ?? ({} as PatternMemberAgent)), id: `member-${n}`, role: 'member', instructions: '' } as PatternMemberAgent;
  return { ...node, members: [...node.members, member] };
}

/** A member removed, and every judgment setting that named it let go of it. */
export function removeMember(node: Pattern, id: string): Pattern {
  const { judgment } = node;
  return {
    ...node,
    members: node.members.filter((m) => m.id !== id),
    judgment: {
      ...judgment,
      verifier: { ...judgment.verifier, must_cite: judgment.verifier.must_cite.filter((m) => m !== id) },
      callers: judgment.callers.map((c) => (c.kind === 'llm' && c.as_member === id ? { kind: 'llm', profile: c.profile } : c)),
    },
  };
}

/** A renamed member: the judgment settings follow the rename. */
export function renameMember(node: Pattern, from: string, to: string): Pattern {
  const rename = (m: string) => (m === from ? to : m);
  const { judgment } = node;
  return {
    ...node,
    members: node.members.map((m) => (m.id === from ? { ...m, id: to } : m)),
    judgment: {
      ...judgment,
      verifier: { ...judgment.verifier, must_cite: judgment.verifier.must_cite.map(rename) },
      callers: judgment.callers.map((c) => (c.kind === 'llm' && c.as_member !== undefined ? { ...c, as_member: rename(c.as_member) } : c)),
    },
  };
}

/** The trigger of this kind, keeping a threshold or n already set. */
export function triggerOf(kind: JudgmentTrigger['kind'], current: JudgmentTrigger): JudgmentTrigger {
  switch (kind) {
    case 'always':
      return { kind };
    case 'below_confidence':
      return { kind, threshold: current.kind === 'below_confidence' ? current.threshold : 0.8 };
    case 'every_n':
      return { kind, n: current.kind === 'every_n' ? current.n : 2 };
  }
}

/**
 * A caller of this kind: a model judge named by a profile, a person (waits in "waiting for you"), a
 * remote A2A agent, or a verifier (a JSON Schema, an expression). A new one starts from a working example.
 */
export function callerOf(kind: JudgmentCaller['kind'], current?: JudgmentCaller): JudgmentCaller {
  if (current?.kind === kind) return current;
  switch (kind) {
    case 'llm':
      return { kind: 'llm', profile: 'default' };
    case 'human':
      return { kind: 'human', fallback: { kind: 'escalate' } };
    case 'a2a':
      return { kind: 'a2a', url: 'http://127.0.0.1:9999' };
    case 'json_schema':
      return { kind: 'json_schema', schema: { type: 'object' } };
    case 'expression':
      return { kind: 'expression', expression: 'length(output) > 0' };
  }
}

/** Every model profile a judge (or a person's fallback) names: each needs its model in judge_models. */
export function judgeProfiles(node: Pattern): string[] {
  const names = node.judgment.callers.flatMap((c) => (c.kind === 'llm' ? [c.profile] : c.kind === 'human' && c.fallback.kind === 'llm' ? [c.fallback.profile] : []));
  return [...new Set(names)];
}
