import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { RoundCard } from './RoundCard';
import { deriveRounds } from '../db/derive-rounds';
import { escalatedRound, eventLog, readExecutedRound, startRun } from '../testing/event-fixtures';
import type { HumanAnswer } from '@shared/contracts/intervention';

function escalated(answer?: HumanAnswer): string {
  const log = eventLog('run-roundcard-01');
  startRun(log);
  escalatedRound(log, 0, answer);
  const [view] = deriveRounds(log.events);
  if (!view) throw new Error('no round derived');
  return renderToStaticMarkup(<RoundCard view={view} />);
}

describe('RoundCard', () => {
  it('a call made before a stop, its result given again, says so in words; a call made now does not', () => {
    const render = (givenAgain: boolean) => {
      const log = eventLog(`run-roundcard-given-${givenAgain}`);
      startRun(log);
      readExecutedRound(log, 1, { givenAgain });
      const [view] = deriveRounds(log.events);
      if (!view) throw new Error('no round derived');
      return renderToStaticMarkup(<RoundCard view={view} />);
    };
    const again = render(true);
    expect(again).toContain('data-testid="round-result-given-again"');
    expect(again).toContain('This exact call was made before a stop cut the run off. The result it got then is given again; the call was not made twice.');
    expect(again).toContain('- buy milk');
    expect(render(false)).not.toContain('round-result-given-again');
  });

  it('while a person is still deciding, the escalated candidate is shown as pending, not struck out as rejected', () => {
    const html = escalated();
    expect(html).toContain('data-rejected="false"');
    expect(html).toContain('data-pending="true"');
    expect(html).not.toContain('class="struck"');
    expect(html).not.toContain('rejected ·');
    expect(html).toContain('pending · waiting for your decision');
  });

  it('once the person rejects the escalated candidate, it is struck out as rejected', () => {
    const html = escalated({ action: 'reject' });
    expect(html).toContain('data-rejected="true"');
    expect(html).toContain('class="struck"');
    expect(html).toContain('rejected · escalated');
    expect(html).not.toContain('pending ·');
  });

  it('a round the person cancelled says Cancelled, not Failed — the model produced nothing usable', () => {
    const log = eventLog('run-roundcard-02');
    startRun(log);
    log.add({ type: 'round.started', round: 0, proposer: 'student' });
    log.add({
      type: 'round.completed',
      round: 0,
      record: { round: 0, proposer: 'student', candidate: {}, repairs: [], verdicts: [], outcome: 'failed', reason: 'cancelled', message: 'the run was cancelled' },
    });
    const [view] = deriveRounds(log.events);
    if (!view) throw new Error('no round derived');
    const html = renderToStaticMarkup(<RoundCard view={view} />);
    expect(html).toContain('data-cancelled="true"');
    expect(html).toContain('>Cancelled</span>');
    expect(html).toContain('cancelled before the model answered');
    expect(html).not.toContain('Failed');
    expect(html).not.toContain('nothing usable');
  });

  it('a round the run ended before it finished says it did not finish, never In progress (issue 28: say what happened)', () => {
    const log = eventLog('run-roundcard-09');
    startRun(log);
    log.add({ type: 'round.started', round: 0, proposer: 'student' });
    const [view] = deriveRounds(log.events);
    if (!view) throw new Error('no round derived');
    const live = renderToStaticMarkup(<RoundCard view={view} />);
    expect(live).toContain('In progress');
    const ended = renderToStaticMarkup(<RoundCard view={view} ended />);
    expect(ended).not.toContain('In progress');
    expect(ended).not.toContain('Waiting for the model');
    expect(ended).toContain('Did not finish');
    expect(ended).toContain('the run ended before the model answered this round');
  });
});
