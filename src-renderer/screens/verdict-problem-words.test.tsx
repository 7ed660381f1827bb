import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { VerdictAttempt } from '@shared/contracts/round';
import { RoundCard } from './RoundCard';
import { verdictProblemWords } from './verdict-problem-words';
import { deriveRounds } from '../db/derive-rounds';
import { blockedRound, eventLog, startRun } from '../testing/event-fixtures';

const RAW = 'replacement failed validation: a tool not offered this round: tool "move_file" was not offered this round (offered: read_text_file, write_file, list_directory)';

/** The Guarded writes demo's second teacher answer: a replacement that calls a tool the round did not offer. */
const refused: VerdictAttempt = {
  attempt: 1,
  reply: { text: '{}', tool_calls: [], model: 'replay' },
  verdict: { verdict: 'replace', reason_codes: ['unsafe_effect'], explanation: 'Move it instead.', replacement: { decision_type: 'tool_call', tool_name: 'move_file', arguments: {} } },
  replacement_validation: { ok: false, issues: [{ code: 'tool_not_offered', message: 'tool "move_file" was not offered this round (offered: read_text_file, write_file, list_directory)' }] },
  usable: false,
  problem: RAW,
};

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&quot;/g, '"').replace(/\s+/g, ' ');

describe('a teacher verdict Steward could not use', () => {
  it('a refused replacement says so in a sentence a person can act on, not in the engine’s words', () => {
    const words = verdictProblemWords(refused, true);
    expect(words).toBe(
      'The teacher’s replacement (move_file) was refused, so it never ran: a tool not offered this round. A replacement may only use the tools this round offered (the workflow’s servers and tool list decide which). Steward asked the teacher again (the next attempt below).',
    );
    expect(words).not.toContain('failed validation');
    expect(verdictProblemWords(refused, false)).toContain('No usable verdict followed');
  });

  it('the other unusable verdicts get words too', () => {
    expect(verdictProblemWords({ attempt: 1, usable: false, problem: 'the teacher model failed: ECONNREFUSED' }, false)).toMatch(/^The teacher model did not answer\. .*Model providers/);
    expect(verdictProblemWords({ attempt: 1, reply: { text: 'ok', tool_calls: [], model: 'replay' }, usable: false, problem: 'malformed verdict: not valid JSON' }, true)).toMatch(/^The teacher’s reply was not a verdict Steward can read\. Steward asked/);
  });

  it('the round card shows the sentence, and the engine’s message only inside a details element', () => {
    const log = eventLog('run-verdict-problem-01');
    startRun(log);
    blockedRound(log, 0);
    const [view] = deriveRounds(log.events);
    if (!view) throw new Error('no round derived');
    const html = renderToStaticMarkup(<RoundCard view={{ ...view, verdicts: [refused, { ...view.verdicts[1]!, attempt: 2 }] }} />);
    const problem = /<div class="verdict__problem" data-testid="verdict-problem">(.*?)<\/div>/.exec(html)?.[1] ?? '';
    expect(text(problem)).toContain('The teacher’s replacement (move_file) was refused, so it never ran');
    // The raw message is one click away: inside <details>, after its summary, and nowhere outside it.
    const details = /<details[^>]*>(.*?)<\/details>/.exec(problem)?.[1] ?? '';
    expect(details).toMatch(/^<summary>What the check said<\/summary>/);
    expect(text(details)).toContain(RAW);
    expect(text(html.replace(/<details[^>]*>.*?<\/details>/g, ''))).not.toContain('failed validation');
  });
});
