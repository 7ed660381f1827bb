import { describe, expect, it } from 'vitest';
import { RunEvent } from '../contracts/events';
import { AgentSpec, SupervisionSpec } from '../contracts/spec';
import { SynthesisSettings, synthesisOf, synthesisSummary } from '../contracts/synthesis';
import { agentsWithSpeech, newSpeechMemory, spokenResponses } from './spoken-responses';

const RUN = 'run-speech-0001';
const REJECTED = 'The rejected student answer that must never be heard';
const FINAL = 'The teacher’s delivered final answer';

let seq = 0;
/** An event as the host stamps it, checked by the contract (so a fixture cannot drift from it). */
function ev(payload: Record<string, unknown>): RunEvent {
  seq += 1;
  return RunEvent.parse({ id: `${RUN}:${String(seq).padStart(6, '0')}`, run_id: RUN, seq, ts: '2026-12-05T12:00:00.000Z', ...payload });
}

const started = (synthesis?: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ev({
    type: 'run.started',
    spec_id: 'speaker',
    spec_name: 'Speaker',
    task: 'answer',
    supervision: SupervisionSpec.parse({}),
    models: { student: 'replay', teacher: 'replay' },
    ...(synthesis ? { synthesis: SynthesisSettings.parse(synthesis) } : {}),
    ...extra,
  });
const text = (t: string, model: string) => ({ text: t, tool_calls: [], model });
const complete = (output: string) => ({ decision_type: 'complete', output });

/** A round whose student candidate the teacher replaced: the candidate, the verdict, the selection, the delivery, the learning record. */
function replacedRound(round: number, extra: Record<string, unknown> = {}): RunEvent[] {
  return [
    ev({ type: 'candidate.proposed', round, reply: text(JSON.stringify(complete(REJECTED)), 'replay'), parsed: { raw: complete(REJECTED), tool_call_count: 0 }, ...extra }),
    ev({ type: 'verdict.received', round, attempt: { attempt: 1, usable: true, verdict: { verdict: 'replace', reason_codes: ['hallucination'], explanation: 'wrong', replacement: complete(FINAL) } }, ...extra }),
    ev({ type: 'decision.selected', round, source: 'teacher', decision: complete(FINAL), ...extra }),
    ev({ type: 'decision.committed', round, history_index: 0, decision: complete(FINAL), ...extra }),
    ev({ type: 'response.delivered', round, decision: complete(FINAL), ...extra }),
    ev({
      type: 'learning.example',
      round,
      student_candidate: complete(REJECTED),
      final_decision: complete(FINAL),
      reason_codes: ['hallucination'],
      agreement: false,
      models: { student: 'replay', teacher: 'replay' },
      ...extra,
    }),
  ];
}

describe('the Synthesis contract', () => {
  it('is off by default, 1× with every delivered kind', () => {
    expect(SynthesisSettings.parse({})).toEqual({ enabled: false, rate: 1, speak: ['present_result', 'ask_user', 'complete'] });
    expect(synthesisOf({})).toMatchObject({ enabled: false });
    expect(synthesisOf({ synthesis: { enabled: true, rate: 9 } })).toMatchObject({ enabled: false });
    expect(synthesisSummary(SynthesisSettings.parse({ enabled: true, rate: 1.5, speak: ['complete'] }))).toBe('on · 1.5× · default voice · the final answer');
  });

  it('refuses a rate outside 0.5–2, an unknown kind, nothing to speak while on, a repeated kind — in words', () => {
    const refusal = (value: unknown) => {
      const r = SynthesisSettings.safeParse(value);
      return r.success ? undefined : r.error.issues.map((i) => i.message).join('; ');
    };
    expect(refusal({ enabled: true, rate: 3 })).toContain('the speech rate is a number from 0.5 to 2');
    expect(refusal({ enabled: true, rate: 0.1 })).toContain('from 0.5 to 2');
    expect(refusal({ enabled: true, speak: ['tool_call'] })).toContain('a spoken response is present_result');
    expect(refusal({ enabled: true, speak: [] })).toContain('speaks nothing');
    expect(refusal({ enabled: false, speak: [] })).toBeUndefined();
    expect(refusal({ enabled: true, speak: ['complete', 'complete'] })).toContain('once');
    expect(refusal({ enabled: true, voice: '' })).toContain('a voice needs a name');
    expect(refusal({ enabled: true, loud: true })).toBeDefined();
  });

  it('is accepted on an agent spec, and absent means off', () => {
    const base = { format: 'steward/v1', kind: 'agent', id: 'a', name: 'A', instructions: 'i', task: 't' };
    expect(AgentSpec.parse(base).synthesis).toBeUndefined();
    expect(AgentSpec.parse({ ...base, synthesis: { enabled: true, voice: 'en-gb', rate: 1.25 } }).synthesis).toEqual({
      enabled: true,
      voice: 'en-gb',
      rate: 1.25,
      speak: ['present_result', 'ask_user', 'complete'],
    });
    expect(AgentSpec.safeParse({ ...base, synthesis: { enabled: true, rate: 5 } }).success).toBe(false);
  });
});

describe('what gets spoken', () => {
  it('speaks the delivered final answer, never the rejected candidate it replaced', () => {
    const events = [started({ enabled: true }), ...replacedRound(0)];
    const spoken = spokenResponses(events);
    expect(spoken.map((s) => s.text)).toEqual([FINAL]);
    expect(JSON.stringify(spoken)).not.toContain(REJECTED);
    expect(spoken[0]).toMatchObject({ kind: 'complete', rate: 1, agent: 'Speaker', run_id: RUN });
  });

  it('speaks nothing for an agent whose speech is off or absent, or a dry run', () => {
    expect(spokenResponses([started(), ...replacedRound(0)])).toEqual([]);
    expect(spokenResponses([started({ enabled: false }), ...replacedRound(0)])).toEqual([]);
    expect(spokenResponses([started({ enabled: true }, { dry_run: true }), ...replacedRound(0)])).toEqual([]);
    // A delivery whose agent's start was never seen: nothing to go on, nothing said.
    expect(spokenResponses(replacedRound(0))).toEqual([]);
  });

  it('speaks only the kinds the node chose, with its voice and rate', () => {
    const events = [
      started({ enabled: true, voice: 'en-gb', rate: 0.75, speak: ['ask_user'] }),
      ev({ type: 'response.delivered', round: 0, decision: { decision_type: 'present_result', content: 'a table' } }),
      ev({ type: 'response.delivered', round: 1, decision: { decision_type: 'ask_user', question: 'Which folder?' } }),
      ev({ type: 'response.delivered', round: 2, decision: complete(FINAL) }),
    ];
    expect(spokenResponses(events)).toMatchObject([{ text: 'Which folder?', kind: 'ask_user', voice: 'en-gb', rate: 0.75 }]);
  });

  it('keys a workflow’s agent nodes by invocation, carries what a batch started into the next, and never speaks a pattern member', () => {
    const agentStart = (invocation_id: string, name: string, synthesis?: Record<string, unknown>) =>
      ev({
        type: 'agent.started',
        invocation_id,
        spec_id: name,
        spec_name: name,
        task: 't',
        supervision: SupervisionSpec.parse({}),
        models: { student: 'replay', teacher: 'replay' },
        ...(synthesis ? { synthesis: SynthesisSettings.parse(synthesis) } : {}),
      });
    const memory = newSpeechMemory();
    const first = [agentStart('inv-a', 'talker', { enabled: true }), agentStart('inv-b', 'quiet')];
    expect(spokenResponses(first, memory)).toEqual([]);
    expect(agentsWithSpeech(first)).toEqual(['talker']);
    const later = [
      ...replacedRound(0, { invocation_id: 'inv-b' }),
      ...replacedRound(0, { invocation_id: 'inv-a', pattern_member: 'judge#0.1' }),
      ...replacedRound(0, { invocation_id: 'inv-a' }),
    ];
    const spoken = spokenResponses(later, memory);
    expect(spoken.map((s) => [s.agent, s.text])).toEqual([['talker', FINAL]]);
    expect(JSON.stringify(spoken)).not.toContain(REJECTED);
  });
});
