import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { JudgmentFlipView, TeacherReplayResult, VerdictFlipView } from '@shared/contracts/profile-replay';
import { TeacherReplayView } from './TeacherReplay';
import { teacherReplayHeadline } from './teacher-replay-words';

const base: TeacherReplayResult = { profile: 'Says yes v1', teacher: 'ollama:yes', cases: 12, runs: 1, agreeing: 12, flipped: 0, protected_catches_lost: 0, flips: [], truncated: false };
const flip = (kind: VerdictFlipView['kind'], lost: boolean, past: 'block' | 'escalate' | 'accept', words: string): VerdictFlipView => ({
  run_id: 'run-1',
  spec_name: 'writer',
  started_at: '2026-12-01T10:00:00.000Z',
  round: 1,
  kind,
  protected: lost,
  protected_catch_lost: lost,
  past: past === 'accept' ? { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } : { verdict: past, reason_codes: ['unsafe_effect'], explanation: 'Not this write.' },
  words,
});
const noop = () => undefined;

describe('Replay past verdicts on a teacher profile: the outcome in words', () => {
  it('an empty history says what records a teacher verdict', () => {
    expect(teacherReplayHeadline({ ...base, cases: 0, runs: 0, agreeing: 0 })).toEqual({
      tone: 'empty',
      text: 'No recorded teacher verdicts or pattern judgments in this history yet: a supervised run records one each time the teacher rules on a round, a pattern node each time it is judged. Run a supervised workflow, then replay again.',
    });
  });

  it('no flips: every past verdict holds', () => {
    expect(teacherReplayHeadline(base)).toEqual({ tone: 'ok', text: 'Under ollama:yes, none of the 12 past verdicts from 1 run flips: it ruled as the recorded teacher on every one.' });
  });

  it('protected stops now accepted: a warning naming them by what the recorded teacher did', () => {
    const result = { ...base, agreeing: 9, flipped: 3, protected_catches_lost: 2, flips: [flip('catch_lost', true, 'block', 'a'), flip('catch_lost', true, 'escalate', 'b'), flip('stricter', false, 'accept', 'c')] };
    expect(teacherReplayHeadline(result)).toEqual({
      tone: 'bad',
      text: 'Under ollama:yes, 3 of the 12 past verdicts from 1 run flip; 1 past block and 1 past escalation of a protected effect would now be accepted. Do not switch to this teacher as it is.',
    });
    expect(teacherReplayHeadline({ ...result, protected_catches_lost: 0, flips: [flip('stricter', false, 'accept', 'c')] }).tone).toBe('warn');
  });

  it('a person’s rejection the candidate would accept: counted as a person’s, and the flip says a person decided it', () => {
    const person = { ...flip('catch_lost', true, 'block', 'the call write_file … would now be accepted; the person rejected it (the recorded teacher had escalated it) — then their note: "Not yet."; now accept'), decided_by: 'person' as const };
    const result = { ...base, agreeing: 10, flipped: 2, protected_catches_lost: 2, flips: [person, flip('catch_lost', true, 'block', 'a')] };
    expect(teacherReplayHeadline(result).text).toBe('Under ollama:yes, 2 of the 12 past verdicts from 1 run flip; 1 past rejection by a person and 1 past block of a protected effect would now be accepted. Do not switch to this teacher as it is.');
    const html = renderToStaticMarkup(<TeacherReplayView replay={{ state: 'status', status: { state: 'completed', done: 12, total: 12, teacher: 'ollama:yes', result } }} onCancel={noop} onClose={noop} />);
    expect(html).toContain('data-decided-by="person"');
    expect(html).toContain('decided by a person');
    expect(html).toContain('the person rejected it (the recorded teacher had escalated it)');
    expect(html.match(/data-testid="teacher-replay-flip-person"/g)).toHaveLength(1);
  });

  it('pattern judgments are cases too: an output a judge stopped that the candidate would approve is a warning, never a protected catch', () => {
    const judged: JudgmentFlipView = {
      run_id: 'run-2',
      invocation_id: 'decision',
      spec_name: 'Storage decision, debated',
      started_at: '2026-12-01T11:00:00.000Z',
      judgment_id: 'decision-s0-i1-a1',
      step: 1,
      iteration: 1,
      kind: 'catch_lost',
      judge: 'llm',
      past: { verdict: 'rejected', feedback: 'Answer the cost.', evidence: ['proponent#1'], caller: { kind: 'llm', profile: 'judge' } },
      now: { verdict: 'approved', evidence: ['proponent#1'] },
      words: 'the output would now be approved and leave the node; then the model judge “judge” rejected: "Answer the cost."',
    };
    const judgments = { cases: 2, agreeing: 1, flipped: 1, approvals_gained: 1, not_asked: 3, flips: [judged] };
    expect(teacherReplayHeadline({ ...base, judgments })).toEqual({
      tone: 'warn',
      text: 'Under ollama:yes, none of the 12 past verdicts from 1 run flips: it ruled as the recorded teacher on every one. 1 of the 2 pattern judgments flip: it would approve 1 output a judge or a person stopped.',
    });
    // Only judgments in the history: said without the reviews.
    expect(teacherReplayHeadline({ ...base, cases: 0, runs: 1, agreeing: 0, judgments: { ...judgments, flipped: 0, agreeing: 2, approvals_gained: 0, flips: [] } })).toEqual({ tone: 'ok', text: 'Under ollama:yes, it judged as recorded on all 2 pattern judgments.' });
    const html = renderToStaticMarkup(<TeacherReplayView replay={{ state: 'status', status: { state: 'completed', done: 14, total: 14, teacher: 'ollama:yes', result: { ...base, judgments } } }} onCancel={noop} onClose={noop} />);
    expect(html).toContain('Pattern judgments that flip');
    expect(html).toContain('data-testid="teacher-replay-judgment-flip" data-kind="catch_lost" data-judge="llm"');
    expect(html).toContain('now approved');
    expect(html).toContain('href="#/runs/run-2/nodes/decision"');
    expect(html).toContain('3 pattern judgments were recorded before Steward kept the judge’s prompt, so they were not asked.');
  });

  it('while it runs: the case under way, a progress bar and a Cancel button; a cancelled one says only part was compared', () => {
    const running = renderToStaticMarkup(<TeacherReplayView replay={{ state: 'status', status: { state: 'running', done: 4, total: 12, teacher: 'ollama:yes' } }} onCancel={noop} onClose={noop} />);
    expect(running).toContain('aria-busy="true"');
    expect(running).toContain('Putting past verdict 5 of 12 to ollama:yes… (no tool is executed)');
    expect(running).toContain('data-testid="teacher-replay-cancel"');
    const cancelled = renderToStaticMarkup(
      <TeacherReplayView replay={{ state: 'status', status: { state: 'cancelled', done: 4, total: 12, result: { ...base, cases: 4, agreeing: 4 }, message: 'Cancelled after 4 of 12 cases: only those were compared.' } }} onCancel={noop} onClose={noop} />,
    );
    expect(cancelled).toContain('Only part of the history was compared.');
    expect(cancelled).toContain('Cancelled after 4 of 12 cases');
  });

  it('a refusal is said as it came (a replay model, a host the privacy policy does not allow)', () => {
    const html = renderToStaticMarkup(<TeacherReplayView replay={{ state: 'refused', text: 'The model of Cloud v1 cannot be used as a candidate teacher here: …. Nothing was sent to it.' }} onCancel={noop} onClose={noop} />);
    expect(html).toContain('role="alert"');
    expect(html).toContain('Nothing was sent to it.');
  });
});
