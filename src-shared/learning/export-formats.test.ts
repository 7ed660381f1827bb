import { describe, expect, it } from 'vitest';
import type { Decision } from '../contracts/decision';
import { RunEvent, type RunEventOf } from '../contracts/events';
import type { ChatMessage } from '../contracts/model';
import { PreferenceLine, SftLine, type LearningExample } from '../contracts/learning-export';
import type { TeacherVerdict } from '../contracts/verdict';
import {
  candidateText,
  describeCount,
  describeSkipped,
  learningExampleFromEvent,
  preferenceLine,
  sftLine,
  toExportLines,
  toJsonl,
  toPreferenceLines,
  toSftLines,
} from './export-formats';

// A student prompt shaped like buildStudentMessages' output: system, task, then history turns.
const CONTEXT: ChatMessage[] = [
  { role: 'system', content: 'You are a careful notes assistant.\n\n## How you answer\nReply with exactly one JSON object.' },
  { role: 'user', content: 'Task: Summarise the meeting notes into summary.md.' },
  { role: 'assistant', content: '{"decision_type":"tool_call","tool_name":"read_text_file","arguments":{"path":"/ws/notes.md"}}' },
  { role: 'tool', content: '# Team sync\nRelease slips a week. Bo: migration guide.' },
];

const READ: Decision = { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: '/ws/notes.md' } };
const OVERWRITE = { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: '/ws/notes.md', content: 'Summary' } };
const SUMMARY: Decision = { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: '/ws/summary.md', content: '# Summary\n- Bo: migration guide' } };

const ACCEPT: TeacherVerdict = { verdict: 'accept', reason_codes: [], explanation: 'Right tool, right file.' };
const REPLACE: TeacherVerdict = { verdict: 'replace', reason_codes: ['unsafe_effect'], explanation: 'Do not overwrite the notes.', replacement: SUMMARY };
const BLOCK: TeacherVerdict = { verdict: 'block', reason_codes: ['policy_violation'], explanation: 'Outside the workspace.' };
const ESCALATE: TeacherVerdict = { verdict: 'escalate', reason_codes: ['other'], explanation: 'A person must decide.' };

let seq = 10;
/** A learning.example event as the engine emits it, checked against the real RunEvent contract. */
function learningEvent(fields: {
  kind?: 'review' | 'shadow' | 'demonstration';
  agreement?: boolean;
  candidate: unknown;
  verdict?: TeacherVerdict;
  final?: Decision;
  context?: ChatMessage[];
  id?: string;
}): RunEventOf<'learning.example'> {
  seq += 1;
  const run = 'run-learning-0001';
  const event = RunEvent.parse({
    type: 'learning.example',
    id: fields.id ?? `${run}:${String(seq).padStart(6, '0')}`,
    run_id: run,
    seq,
    ts: '2026-11-30T10:00:00.000Z',
    round: 2,
    kind: fields.kind ?? 'review',
    context: fields.context ?? CONTEXT,
    ...(fields.kind === undefined || fields.kind === 'review' ? { rule: 'protected_effect' } : {}),
    student_candidate: fields.candidate,
    ...(fields.verdict ? { verdict: fields.verdict } : {}),
    ...(fields.final ? { final_decision: fields.final } : {}),
    reason_codes: fields.verdict?.reason_codes ?? [],
    agreement: fields.agreement ?? fields.verdict?.verdict === 'accept',
    models: { student: 'ollama:qwen3:4b', teacher: 'ollama:qwen3:32b' },
  });
  if (event.type !== 'learning.example') throw new Error('fixture is not a learning.example');
  return event;
}

function example(fields: Parameters<typeof learningEvent>[0]): LearningExample {
  return learningExampleFromEvent(learningEvent(fields), 'notes-assistant');
}

const accepted = () => example({ candidate: READ, verdict: ACCEPT, final: READ });
const replaced = () => example({ candidate: OVERWRITE, verdict: REPLACE, final: SUMMARY });
const blocked = () => example({ candidate: OVERWRITE, verdict: BLOCK });
const escalated = () => example({ candidate: OVERWRITE, verdict: ESCALATE });

describe('which rounds become which lines', () => {
  it('an accepted round is one SFT line trained on the student’s own decision, and no preference pair', () => {
    const ex = accepted();
    const sft = toSftLines([ex]);
    expect(sft.skipped).toEqual({});
    expect(sft.lines).toHaveLength(1);
    expect(sft.lines[0]?.messages.at(-1)).toEqual({ role: 'assistant', content: JSON.stringify(READ) });

    const pref = toPreferenceLines([ex]);
    expect(pref.lines).toEqual([]);
    expect(pref.skipped).toEqual({ agreed: 1 });
  });

  it('a replaced round trains SFT on the teacher’s decision, and pairs it (preferred) against the student’s (non-preferred)', () => {
    const ex = replaced();
    const sft = toSftLines([ex]);
    expect(sft.lines[0]?.messages.at(-1)).toEqual({ role: 'assistant', content: JSON.stringify(SUMMARY) });
    // The rejected candidate never becomes an SFT target.
    expect(sft.lines[0]?.messages.map((m) => m.content)).not.toContain(JSON.stringify(OVERWRITE));

    const pref = toPreferenceLines([ex]);
    expect(pref.skipped).toEqual({});
    expect(pref.lines).toEqual([
      {
        input: {
          messages: [
            { role: 'system', content: CONTEXT[0]?.content },
            { role: 'user', content: CONTEXT[1]?.content },
            { role: 'assistant', content: CONTEXT[2]?.content },
            { role: 'user', content: `Tool result:\n${CONTEXT[3]?.content}` },
          ],
        },
        preferred_output: [{ role: 'assistant', content: JSON.stringify(SUMMARY) }],
        non_preferred_output: [{ role: 'assistant', content: JSON.stringify(OVERWRITE) }],
      },
    ]);
  });

  it('a blocked or escalated round has no final decision: neither format writes it, both count it', () => {
    const examples = [blocked(), escalated()];
    expect(toSftLines(examples)).toEqual({ lines: [], skipped: { no_final_decision: 2 } });
    expect(toPreferenceLines(examples)).toEqual({ lines: [], skipped: { no_final_decision: 2 } });
  });

  it('an example whose prompt was not recorded is never written without its input, and is counted', () => {
    const noContext = [
      example({ candidate: READ, verdict: ACCEPT, final: READ, context: [] }),
      example({ candidate: OVERWRITE, verdict: REPLACE, final: SUMMARY, context: [] }),
    ];
    expect(toSftLines(noContext)).toEqual({ lines: [], skipped: { no_context: 2 } });
    // The accepted one is not a pair anyway; only the replacement is missing its prompt.
    expect(toPreferenceLines(noContext)).toEqual({ lines: [], skipped: { agreed: 1, no_context: 1 } });
  });

  it('a teacher demonstration (phase 0, takeover) is an SFT line on the teacher’s decision, and no pair: the student said nothing', () => {
    const demo = example({ kind: 'demonstration', candidate: undefined, final: SUMMARY });
    expect(toSftLines([demo]).lines[0]?.messages.at(-1)).toEqual({ role: 'assistant', content: JSON.stringify(SUMMARY) });
    expect(toPreferenceLines([demo])).toEqual({ lines: [], skipped: { no_student_candidate: 1 } });
  });

  it('a shadow round is a pair when the student proposed something else, nothing when it agreed, and never an SFT line', () => {
    const differed = example({ kind: 'shadow', agreement: false, candidate: OVERWRITE, final: SUMMARY });
    const agreed = example({ kind: 'shadow', agreement: true, candidate: { ...SUMMARY, confidence: 0.9 }, final: SUMMARY });
    const pref = toPreferenceLines([differed, agreed]);
    expect(pref.skipped).toEqual({ agreed: 1 });
    expect(pref.lines.map((l) => [l.preferred_output[0]?.content, l.non_preferred_output[0]?.content])).toEqual([
      [JSON.stringify(SUMMARY), JSON.stringify(OVERWRITE)],
    ]);
    expect(toSftLines([differed, agreed])).toEqual({ lines: [], skipped: { shadow_round: 2 } });
  });

  it('a phase 1 round (the teacher’s demonstration and the student’s shadow) trains SFT once', () => {
    const round = [
      example({ kind: 'demonstration', candidate: undefined, final: SUMMARY }),
      example({ kind: 'shadow', agreement: false, candidate: OVERWRITE, final: SUMMARY }),
    ];
    const sft = toSftLines(round);
    expect(sft.lines).toHaveLength(1);
    expect(sft.skipped).toEqual({ shadow_round: 1 });
    expect(toPreferenceLines(round).lines).toHaveLength(1);
  });

  it('a mixed trace splits exactly: SFT = accepted + replaced, preference = replaced only', () => {
    const examples = [accepted(), replaced(), blocked(), accepted(), escalated()];
    const sft = toExportLines('sft', examples);
    expect(sft.lines).toHaveLength(3);
    expect(sft.skipped).toEqual({ no_final_decision: 2 });
    const pref = toExportLines('preference', examples);
    expect(pref.lines).toHaveLength(1);
    expect(pref.skipped).toEqual({ agreed: 2, no_final_decision: 2 });
  });
});

describe('what the lines contain', () => {
  it('earlier assistant turns are context (weight 0); only the final decision is trained on', () => {
    const line = sftLine(accepted());
    if (typeof line === 'string') throw new Error(`skipped: ${line}`);
    const assistants = line.messages.filter((m) => m.role === 'assistant');
    expect(assistants).toHaveLength(2);
    expect(assistants[0]).toMatchObject({ weight: 0 });
    expect(assistants[1]).not.toHaveProperty('weight');
  });

  it('tool results become user turns marked "Tool result:", so no line carries a tool role', () => {
    const lines = [...toSftLines([accepted(), replaced()]).lines, ...toPreferenceLines([replaced()]).lines];
    const text = toJsonl(lines);
    expect(text).not.toContain('"role":"tool"');
    const sft = toSftLines([accepted()]).lines[0];
    expect(sft?.messages[3]).toEqual({ role: 'user', content: `Tool result:\n${CONTEXT[3]?.content}` });
  });

  it('a student reply that did not parse is the non-preferred output verbatim', () => {
    const prose = 'Sure! I will just overwrite the notes with a summary.';
    const line = preferenceLine(example({ candidate: prose, verdict: { ...REPLACE, reason_codes: ['other'] }, final: SUMMARY }));
    if (typeof line === 'string') throw new Error(`skipped: ${line}`);
    expect(line.non_preferred_output).toEqual([{ role: 'assistant', content: prose }]);
  });

  it('a replacement with no student output to reject makes no pair, but still an SFT line', () => {
    const ex = example({ candidate: undefined, verdict: REPLACE, final: SUMMARY });
    expect(preferenceLine(ex)).toBe('no_student_candidate');
    expect(typeof sftLine(ex)).toBe('object');
    expect(candidateText('   ')).toBeUndefined();
  });

  it('a pair whose rejected output reads the same as the chosen one teaches nothing and is not written', () => {
    // e.g. two parallel tool calls: the recorded candidate is the first call, which the teacher kept.
    const ex = example({ candidate: { ...READ }, verdict: { ...REPLACE, replacement: READ }, final: READ });
    expect(preferenceLine(ex)).toBe('identical_outputs');
  });

  it('the same example read twice (same event id) is written once', () => {
    const ex = replaced();
    expect(toSftLines([ex, ex]).skipped).toEqual({ duplicate: 1 });
    expect(toPreferenceLines([ex, { ...ex }]).lines).toHaveLength(1);
  });

  it('every produced line passes its format schema, also after a JSONL round trip', () => {
    const examples = [accepted(), replaced(), blocked(), escalated(), example({ candidate: 'not json', verdict: REPLACE, final: SUMMARY })];
    const sft = toSftLines(examples).lines;
    const pref = toPreferenceLines(examples).lines;
    expect(sft).toHaveLength(3);
    expect(pref).toHaveLength(2);
    for (const raw of toJsonl(sft).trimEnd().split('\n')) expect(SftLine.safeParse(JSON.parse(raw)).success).toBe(true);
    for (const raw of toJsonl(pref).trimEnd().split('\n')) expect(PreferenceLine.safeParse(JSON.parse(raw)).success).toBe(true);
    expect(toJsonl([])).toBe('');
  });

  it('a learning example keeps the event’s identity, its run, the agent and the review facts', () => {
    const ex = replaced();
    expect(ex).toMatchObject({
      run_id: 'run-learning-0001',
      spec_id: 'notes-assistant',
      round: 2,
      rule: 'protected_effect',
      agreement: false,
      reason_codes: ['unsafe_effect'],
      models: { student: 'ollama:qwen3:4b', teacher: 'ollama:qwen3:32b' },
    });
    expect(ex.id).toMatch(/^run-learning-0001:\d{6}$/);
  });
});

describe('summaries', () => {
  it('name the count with its noun and every skip reason', () => {
    expect(describeCount('sft', 1)).toBe('1 SFT example');
    expect(describeCount('sft', 3)).toBe('3 SFT examples');
    expect(describeCount('preference', 0)).toBe('0 preference pairs');
    expect(describeSkipped({})).toBe('');
    expect(describeSkipped({ no_final_decision: 1 })).toBe('1 skipped: no final decision');
    expect(describeSkipped({ no_context: 1, no_final_decision: 2 })).toBe('3 skipped: 2 no final decision, 1 no prompt context recorded');
  });
});
