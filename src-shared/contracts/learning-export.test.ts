import { describe, expect, it } from 'vitest';
import { LEARNING_SKIP_LABELS, LEARNING_SKIP_REASONS, LearningExample, LearningExportSummary, PreferenceLine, SftLine } from './learning-export';

const sft = {
  messages: [
    { role: 'system', content: 'You are a notes assistant.' },
    { role: 'user', content: 'Task: summarise.' },
    { role: 'assistant', content: '{"decision_type":"complete","output":"done"}' },
  ],
};
const pair = {
  input: { messages: [{ role: 'user', content: 'Task: summarise.' }] },
  preferred_output: [{ role: 'assistant', content: '{"decision_type":"complete","output":"done"}' }],
  non_preferred_output: [{ role: 'assistant', content: 'Sure, here it is' }],
};

describe('the SFT line format (OpenAI chat fine-tuning)', () => {
  it('accepts a prompt followed by the trained assistant turn, with earlier assistant turns weighted 0', () => {
    expect(SftLine.safeParse(sft).success).toBe(true);
    const multi = { messages: [sft.messages[1], { role: 'assistant', content: '{}', weight: 0 }, { role: 'user', content: 'Tool result:\nok' }, sft.messages[2]] };
    expect(SftLine.safeParse(multi).success).toBe(true);
  });

  it('rejects a line that does not end in a trained assistant turn', () => {
    expect(SftLine.safeParse({ messages: sft.messages.slice(0, 2) }).success).toBe(false);
    const lastWeighted = { messages: [...sft.messages.slice(0, 2), { role: 'assistant', content: 'x', weight: 0 }] };
    expect(SftLine.safeParse(lastWeighted).success).toBe(false);
  });

  it('rejects tool roles, a conversation starting with the assistant, empty assistant content and unknown keys', () => {
    expect(SftLine.safeParse({ messages: [{ role: 'tool', content: 'r' }, sft.messages[2]] }).success).toBe(false);
    expect(SftLine.safeParse({ messages: [sft.messages[2], sft.messages[2]] }).success).toBe(false);
    expect(SftLine.safeParse({ messages: [sft.messages[1], { role: 'assistant', content: '' }] }).success).toBe(false);
    expect(SftLine.safeParse({ ...sft, extra: 1 }).success).toBe(false);
    expect(SftLine.safeParse({ messages: [sft.messages[1], { role: 'assistant', content: 'x', weight: 2 }] }).success).toBe(false);
  });
});

describe('the preference line format (OpenAI DPO)', () => {
  it('accepts one prompt with one preferred and one non-preferred assistant output', () => {
    expect(PreferenceLine.safeParse(pair).success).toBe(true);
  });

  it('rejects identical outputs, several outputs, a prompt not ending with the user, and missing parts', () => {
    expect(PreferenceLine.safeParse({ ...pair, non_preferred_output: pair.preferred_output }).success).toBe(false);
    expect(PreferenceLine.safeParse({ ...pair, preferred_output: [...pair.preferred_output, ...pair.preferred_output] }).success).toBe(false);
    expect(PreferenceLine.safeParse({ ...pair, input: { messages: [...pair.input.messages, { role: 'assistant', content: 'x' }] } }).success).toBe(false);
    expect(PreferenceLine.safeParse({ ...pair, input: { messages: [{ role: 'tool', content: 'x' }] } }).success).toBe(false);
    const { non_preferred_output: _dropped, ...noRejected } = pair;
    expect(PreferenceLine.safeParse(noRejected).success).toBe(false);
    expect(PreferenceLine.safeParse({ ...pair, input: { messages: [] } }).success).toBe(false);
  });
});

describe('learning records', () => {
  it('a learning example is strict: unknown keys are refused', () => {
    const ex = {
      id: 'run-0001:000007',
      run_id: 'run-0001',
      ts: '2026-11-30T10:00:00.000Z',
      round: 1,
      kind: 'review',
      context: [],
      student_candidate: 'x',
      reason_codes: [],
      agreement: true,
      models: { student: 's', teacher: 't' },
    };
    expect(LearningExample.safeParse(ex).success).toBe(true);
    expect(LearningExample.safeParse({ ...ex, secret: 'x' }).success).toBe(false);
    expect(LearningExample.safeParse({ ...ex, kind: 'rumour' }).success).toBe(false);
  });

  it('every skip reason has a label, and a summary counts only reasons that occurred', () => {
    expect(Object.keys(LEARNING_SKIP_LABELS).sort()).toEqual([...LEARNING_SKIP_REASONS].sort());
    const summary = { format: 'sft', traces: 1, examples: 2, written: 1, skipped: { no_final_decision: 1 }, problems: [] };
    expect(LearningExportSummary.safeParse(summary).success).toBe(true);
    expect(LearningExportSummary.safeParse({ ...summary, skipped: { no_final_decision: 0 } }).success).toBe(false);
    expect(LearningExportSummary.safeParse({ ...summary, skipped: { bored: 1 } }).success).toBe(false);
  });
});
