import { describe, expect, it } from 'vitest';
import type { Intervention } from '@shared/contracts/intervention';
import { answerCommands, answerFromWords } from './answer-words';
import { askAtTerminal, describeIntervention } from './ask-at-terminal';

const judgment: Intervention = {
  id: 'run-cli-judge-1:report#0:report#0:j0.1.0.1',
  run_id: 'run-cli-judge-1',
  round: 0,
  kind: 'pattern_judgment',
  reason: 'Judge the output of the SUPERVISOR pattern report (iteration 1 of 3).',
  reason_codes: [],
  options: ['approve', 'reject', 'escalate'],
  requested_at: '2026-12-01T10:00:00.000Z',
  judgment: {
    judgment_id: 'report#0:j0.1.0.1',
    node: 'report',
    pattern_type: 'SUPERVISOR',
    step: 0,
    steps: 1,
    iteration: 1,
    max_iterations: 3,
    output: 'Report v1',
    outputs: [{ id: 'worker#1', member_id: 'worker', text: 'Report v1' }],
    min_citations: 1,
    must_cite: ['worker'],
  },
};

/** A person at the terminal, typing these lines in turn. */
function typing(...lines: string[]) {
  const asked: string[] = [];
  let said = '';
  return { io: { stderr: (t: string) => void (said += t), line: async (q: string) => (asked.push(q), lines.shift()) }, asked, said: () => said };
}

describe('a pattern judgment at the terminal', () => {
  it('shows the output and each member output by the id a verdict cites', () => {
    const lines = describeIntervention(judgment).join('\n');
    expect(lines).toContain('judge the pattern’s output');
    expect(lines).toContain('SUPERVISOR report · iteration 1 of 3');
    expect(lines).toContain('[worker#1] worker:\n    Report v1');
    expect(lines).toContain('a verdict cites at least 1 output(s), one of worker');
  });

  it('reject asks for the feedback, which the answer carries; a rejection without feedback is refused and asked again', async () => {
    const t = typing('reject', '', 'reject worker#1', 'Add a timeline.');
    expect(await askAtTerminal(judgment, t.io)).toEqual({ action: 'reject', note: 'Add a timeline.', evidence: ['worker#1'] });
    expect(t.said()).toContain('a rejection needs its feedback');
    expect(t.asked.filter((q) => q.startsWith('Feedback'))).toHaveLength(2);
  });

  it('approve citing an output of another iteration is refused; escalate takes an optional reason', async () => {
    const t = typing('approve elsewhere#9', 'escalate', 'Legal must see it.');
    expect(await askAtTerminal(judgment, t.io)).toEqual({ action: 'escalate', note: 'Legal must see it.' });
    expect(t.said()).toContain('does not have: elsewhere#9');
  });

  it('steward answer words: reject --feedback with --cite; the printed commands show the feedback', () => {
    expect(answerFromWords(['reject'], 'Add a timeline.', undefined, ['worker#1'])).toEqual({ action: 'reject', note: 'Add a timeline.', evidence: ['worker#1'] });
    expect(answerCommands('run-cli-judge-1', judgment)).toEqual([
      'steward answer run-cli-judge-1 approve',
      "steward answer run-cli-judge-1 reject --feedback 'WHAT TO FIX'",
      'steward answer run-cli-judge-1 escalate',
    ]);
  });
});
