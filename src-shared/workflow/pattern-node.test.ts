import { describe, expect, it } from 'vitest';
import { PATTERN_TYPES } from '../pattern/contracts';
import { PatternNode, WorkflowNode, patternSettingsOf, type WorkflowNodeInput } from './document';
import { presetPatternNode } from './pattern-preset-node';
import { portsOf } from './ports';
import { graphOf, input, output } from './testing/graphs';
import { validateGraph } from './validate-graph';

const pattern = (extra: Record<string, unknown> = {}): WorkflowNodeInput =>
  ({
    id: 'p',
    kind: 'pattern',
    type: 'PIPELINE',
    task: 'Write about {{topic}}.',
    inputs: [{ name: 'topic', type: 'text' }],
    members: [
      { id: 'draft', role: 'drafter', instructions: 'Draft it.' },
      { id: 'final', role: 'editor', instructions: 'Finish it.' },
    ],
    judgment: { callers: [{ kind: 'llm', profile: 'judge' }] },
    judge_models: { judge: { provider: 'script' } },
    ...extra,
  }) as WorkflowNodeInput;

const wired = (node: WorkflowNodeInput) => graphOf([input('in', 'topic'), node, output('out', 'text', 'ok', 'n')], ['in.topic->p.topic', 'p.output->out.text', 'p.approved->out.ok', 'p.iterations->out.n']);

describe('the pattern node kind', () => {
  it('a pattern node wired input → pattern → output has no problems, and its ports are output, approved and iterations', () => {
    const g = wired(pattern());
    expect(validateGraph(g)).toEqual([]);
    const node = g.nodes.find((n) => n.id === 'p');
    expect(node && portsOf(node).outputs).toEqual([
      { name: 'output', type: 'text' },
      { name: 'approved', type: 'boolean' },
      { name: 'iterations', type: 'number' },
    ]);
  });

  it('the schema fills the defaults: three iterations, fail on exhaustion, always judged, all callers agree, one citation', () => {
    const node = PatternNode.parse(pattern());
    expect(node.max_iterations).toBe(3);
    expect(node.on_exhaustion).toBe('fail');
    expect(node.judgment).toMatchObject({ mode: 'default', trigger: { kind: 'always' }, agreement: 'all', verifier: { min_citations: 1 }, on_verification_failure: 'retry_then_escalate' });
    // Members are agent definitions: each gets the agent defaults (replay models, review rules, limits).
    expect(node.members[0]).toMatchObject({ models: { student: { provider: 'script' } }, supervision: expect.any(Object), limits: { max_rounds: 12 } });
    expect(patternSettingsOf(node).members).toEqual([
      { id: 'draft', role: 'drafter', instructions: 'Draft it.' },
      { id: 'final', role: 'editor', instructions: 'Finish it.' },
    ]);
  });

  it('the pattern rules hold on the node: a verifier citing a member that does not exist is refused at that path', () => {
    const parsed = WorkflowNode.safeParse(pattern({ judgment: { callers: [{ kind: 'llm', profile: 'judge' }], verifier: { must_cite: ['ghost'] } } }));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues).toContainEqual(expect.objectContaining({ path: ['judgment', 'verifier', 'must_cite', 0], message: 'no member "ghost"' }));
  });

  it('duplicate members, and a judged-per-step placement on a non-PIPELINE, are refused', () => {
    const dup = WorkflowNode.safeParse(pattern({ members: [{ id: 'a', role: 'x' }, { id: 'a', role: 'y' }] }));
    expect(dup.error?.issues.map((i) => i.message)).toContain('member ids must be unique');
    const steps = WorkflowNode.safeParse(pattern({ type: 'DEBATE', judgment: { placement: 'after_each_step', callers: [{ kind: 'llm', profile: 'judge' }] } }));
    expect(steps.error?.issues.map((i) => i.message)).toContain('only a PIPELINE has steps to judge one by one');
  });

  it('a judge whose profile names no model is a graph problem on the node', () => {
    const g = wired(pattern({ judge_models: {} }));
    expect(validateGraph(g)).toEqual([{ node: 'p', code: 'unknown_judge_model', message: 'a judge uses the profile "judge", which names no model in judge_models' }]);
  });

  it('a human caller’s model fallback needs its model too; a plain human caller needs none', () => {
    const human = { kind: 'human', expiry_seconds: 600, fallback: { kind: 'llm', profile: 'backup' } };
    expect(validateGraph(wired(pattern({ judgment: { callers: [human] }, judge_models: {} }))).map((p) => p.code)).toEqual(['unknown_judge_model']);
    expect(validateGraph(wired(pattern({ judgment: { callers: [{ kind: 'human' }] }, judge_models: {} })))).toEqual([]);
  });

  it('a {{name}} in the task or a member’s instructions that the node does not declare is reported', () => {
    const g = wired(pattern({ members: [{ id: 'draft', role: 'drafter', instructions: 'Use {{tone}}.' }] }));
    expect(validateGraph(g)).toContainEqual(expect.objectContaining({ node: 'p', port: 'tone', code: 'undeclared_input' }));
  });

  it('a server the pattern names must exist in the workflow', () => {
    expect(validateGraph(wired(pattern({ servers: ['fs'] }))).map((p) => p.code)).toEqual(['unknown_server']);
  });

  it.each(PATTERN_TYPES)('the %s preset makes a valid node whose judgment is the preset’s', (type) => {
    const node = presetPatternNode('p', type);
    expect(node.type).toBe(type);
    const g = graphOf([input('in', 'task'), node, output('out', 'text')], ['in.task->p.task', 'p.output->out.text']);
    expect(validateGraph(g)).toEqual([]);
    if (type === 'SUPERVISOR') expect(node.judgment.callers).toEqual([{ kind: 'llm', profile: 'default', as_member: 'supervisor' }]);
    if (type === 'DEBATE') expect(node.judgment.verifier.must_cite).toEqual(['proponent', 'opponent']);
    if (type === 'PIPELINE') expect(node.members.map((m) => m.id)).toEqual(['draft', 'review', 'final']);
  });
});
