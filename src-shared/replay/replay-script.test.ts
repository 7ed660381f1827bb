import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../contracts/events';
import { MASK } from '../util/mask';
import { recordedScript } from './replay-script';

let seq = 0;
const ev = (e: Record<string, unknown>): RunEvent => {
  seq += 1;
  return { run_id: 'run-aaaaaaaa', id: `run-aaaaaaaa:${seq}`, seq, ts: '2026-12-01T00:00:00.000Z', ...e } as RunEvent;
};
const reply = (text: string) => ({ text, tool_calls: [], model: 'ollama:qwen3:4b' });

describe('the replay script of a recorded run', () => {
  it('gives back each queue in order: proposals by who proposed, verdicts, a failed call as its error without the boundary\'s words', () => {
    const events = [
      ev({ type: 'round.started', round: 0, proposer: 'student' }),
      ev({ type: 'candidate.proposed', round: 0, attempt: 0, reply: reply('not json'), parsed: { ok: false, error: 'x' } }),
      ev({ type: 'candidate.proposed', round: 0, attempt: 1, reply: { text: '', tool_calls: [{ name: 'read', arguments: { path: 'a' } }], model: 'm' }, parsed: { ok: false, error: 'x' } }),
      ev({ type: 'verdict.received', round: 0, attempt: { attempt: 1, problem: 'the teacher model failed: timed out', usable: false } }),
      ev({ type: 'verdict.received', round: 0, attempt: { attempt: 2, reply: reply('{"verdict":"accept"}'), usable: true } }),
      ev({ type: 'round.started', round: 1, proposer: 'teacher' }),
      ev({ type: 'candidate.proposed', round: 1, attempt: 0, reply: reply('{"decision_type":"complete","output":"ok"}'), parsed: { ok: false, error: 'x' } }),
      ev({ type: 'round.started', round: 2, proposer: 'student' }),
      ev({ type: 'round.completed', round: 2, record: { round: 2, proposer: 'student', candidate: {}, repairs: [], verdicts: [], outcome: 'failed', reason: 'student_error', message: 'the student model failed: connection refused' } }),
    ];
    const { script, gaps, liveProblems } = recordedScript(events);
    expect(script.student).toEqual([{ text: 'not json' }, { tool_calls: [{ name: 'read', arguments: { path: 'a' } }] }, { error: 'connection refused' }]);
    expect(script.teacher).toEqual([{ error: 'timed out' }, { text: '{"verdict":"accept"}' }, { text: '{"decision_type":"complete","output":"ok"}' }]);
    expect(gaps).toEqual([]);
    expect(liveProblems).toEqual([]);
  });

  it('says which answers were stored masked or trimmed (rounds numbered from 1, as every screen shows them): a live replay would execute those, not what the model said', () => {
    const events = [
      ev({ type: 'round.started', round: 0, proposer: 'student' }),
      ev({ type: 'candidate.proposed', round: 0, attempt: 0, reply: reply(`{"decision_type":"tool_call","tool_name":"login","arguments":{"password":"${MASK}"}}`), parsed: { ok: false, error: 'x' } }),
      ev({ type: 'round.started', round: 1, proposer: 'student' }),
      ev({ type: 'candidate.proposed', round: 1, attempt: 0, reply: reply('{"decision_type":"tool_call"…'), parsed: { ok: false, error: 'x' }, trimmed: [{ path: 'reply.text', original_bytes: 900_000 }] }),
    ];
    const { gaps, liveProblems } = recordedScript(events);
    expect(liveProblems).toEqual([
      "round 1: the student's proposal was stored with masked values (sensitive arguments and credentials are never stored)",
      "round 2: the student's proposal was stored trimmed",
    ]);
    expect(gaps).toEqual(liveProblems.map((p) => `${p}; the replay gets the stored text`));
  });
});
