import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunEvent, type RunEventOf } from '../contracts/events';
import type { LearningKind } from '../contracts/learning-export';
import type { ChatMessage } from '../contracts/model';
import { encodeContext, PromptBook, type PromptSource } from './learning-context';

type Example = { round: number; kind: LearningKind; context: ChatMessage[]; invocation?: string };

/** Examples as the engine stores them: each prompt encoded against the previous example of its agent run. */
function stored(runId: string, examples: Example[]): Array<RunEventOf<'learning.example'>> {
  const previous = new Map<string, PromptSource>();
  return examples.map((ex, seq) => {
    const agent = ex.invocation ?? '';
    const encoded = encodeContext(previous.get(agent), ex.context);
    previous.set(agent, ex);
    const event = RunEvent.parse({
      type: 'learning.example',
      id: `${runId}:${String(seq).padStart(6, '0')}`,
      run_id: runId,
      seq,
      ts: '2026-12-01T04:00:00.000Z',
      round: ex.round,
      kind: ex.kind,
      ...encoded,
      ...(ex.invocation !== undefined ? { invocation_id: ex.invocation } : {}),
      student_candidate: 'x',
      reason_codes: [],
      agreement: true,
      models: { student: 's', teacher: 't' },
    });
    if (event.type !== 'learning.example') throw new Error('not a learning example');
    return event;
  });
}

const message = fc.record({ role: fc.constantFrom('system' as const, 'user' as const, 'assistant' as const, 'tool' as const), content: fc.string({ maxLength: 12 }) });

/** A run's prompts: a system prompt and task that sometimes change, a history that grows, sometimes a feedback turn at the end. */
const promptSequence = fc
  .array(fc.record({ system: fc.nat(2), task: fc.nat(1), turns: fc.array(message, { maxLength: 3 }), feedback: fc.option(message, { nil: undefined }), shadow: fc.boolean() }), { minLength: 1, maxLength: 12 })
  .map((steps) => {
    const history: ChatMessage[] = [];
    const examples: Example[] = [];
    steps.forEach((s, round) => {
      const context = [{ role: 'system' as const, content: `system ${s.system}` }, { role: 'user' as const, content: `Task ${s.task}` }, ...history, ...(s.feedback ? [s.feedback] : [])];
      examples.push({ round, kind: s.shadow ? 'demonstration' : 'review', context });
      if (s.shadow) examples.push({ round, kind: 'shadow', context });
      history.push(...s.turns);
    });
    return examples;
  });

describe('learning prompts stored by reference', () => {
  it('every prompt is rebuilt exactly from the referenced form, whatever changed between rounds', () => {
    fc.assert(
      fc.property(promptSequence, (examples) => {
        const book = new PromptBook();
        const rebuilt = stored('run-prop-0001', examples).map((e) => book.resolve(e));
        expect(rebuilt).toEqual(examples.map((ex) => ({ ok: true, context: ex.context })));
      }),
    );
  });

  it('a growing history is stored once: each example keeps only the turns since the previous one', () => {
    const system: ChatMessage = { role: 'system', content: 'You keep notes.' };
    const task: ChatMessage = { role: 'user', content: 'Task: notes' };
    const turn = (i: number): ChatMessage => ({ role: i % 2 === 0 ? 'assistant' : 'tool', content: `turn ${i}` });
    const examples: Example[] = [0, 1, 2].map((round) => ({ round, kind: 'review', context: [system, task, ...Array.from({ length: round * 2 }, (_, i) => turn(i))] }));
    const events = stored('run-grow-0001', examples);
    expect(events.map((e) => [e.context_ref, e.context.length])).toEqual([
      [undefined, 2],
      [{ round: 0, kind: 'review', start: 0, end: 2 }, 2],
      [{ round: 1, kind: 'review', start: 0, end: 4 }, 2],
    ]);
  });

  it('a changed system prompt is stored as a new head; the history after it is still referenced', () => {
    const before: Example = { round: 0, kind: 'review', context: [{ role: 'system', content: 'phase 1' }, { role: 'user', content: 'Task' }, { role: 'assistant', content: '{}' }] };
    const after: Example = { round: 1, kind: 'review', context: [{ role: 'system', content: 'phase 2' }, ...before.context.slice(1)] };
    const [, second] = stored('run-head-0001', [before, after]);
    expect(second?.context_head).toEqual([{ role: 'system', content: 'phase 2' }]);
    expect(second?.context_ref).toEqual({ round: 0, kind: 'review', start: 1, end: 3 });
    expect(second?.context).toEqual([]);
  });

  it('two agents of one workflow run, with the same rounds, each rebuild from their own examples', () => {
    const a = (round: number): Example => ({ round, kind: 'review', invocation: 'a', context: [{ role: 'system', content: 'agent a' }, ...Array.from({ length: round }, (_, i) => ({ role: 'assistant' as const, content: `a${i}` }))] });
    const b = (round: number): Example => ({ round, kind: 'review', invocation: 'b', context: [{ role: 'system', content: 'agent b' }, ...Array.from({ length: round }, (_, i) => ({ role: 'assistant' as const, content: `b${i}` }))] });
    const examples = [a(0), b(0), a(1), b(1), b(2), a(2)];
    const book = new PromptBook();
    expect(stored('run-flow-0001', examples).map((e) => book.resolve(e))).toEqual(examples.map((ex) => ({ ok: true, context: ex.context })));
  });

  it('an example whose referenced example is missing is refused with a reason, never given a partial prompt', () => {
    const examples: Example[] = [0, 1].map((round) => ({ round, kind: 'review', context: [{ role: 'system', content: 's' }, ...Array.from({ length: round }, () => ({ role: 'assistant' as const, content: 'x' }))] }));
    const [, second] = stored('run-lost-0001', examples);
    if (!second) throw new Error('no second example');
    expect(new PromptBook().resolve(second)).toEqual({ ok: false, message: "its prompt repeats round 1's review example, which is not here (read the run's whole trace)" });
  });

  it('an old trace event that copies its whole prompt is its own prompt', () => {
    const [only] = stored('run-copy-0001', [{ round: 3, kind: 'review', context: [{ role: 'user', content: 'Task' }] }]);
    if (!only) throw new Error('no example');
    expect(only.context_ref).toBeUndefined();
    expect(new PromptBook().resolve(only)).toEqual({ ok: true, context: [{ role: 'user', content: 'Task' }] });
  });
});
