import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { RunEvent } from '@shared/contracts/events';
import supervisorJson from '../../testing/recorded/pattern-supervisor.events.json';
import { MemberRounds, VIRTUAL_ROUNDS_FROM } from './PatternMemberRuns';
import { PatternTimeline } from './PatternTimeline';

const supervisorRun = RunEvent.array().parse(supervisorJson);
const count = (html: string, needle: string) => html.split(needle).length - 1;

describe('PatternTimeline: what each member did', () => {
  it('each iteration of a recorded run offers its member runs behind a closed disclosure button (keyboard: a real button with aria-expanded)', () => {
    const html = renderToStaticMarkup(<PatternTimeline events={supervisorRun} invocationId="summary" />);
    expect(count(html, 'data-testid="pattern-iteration"')).toBe(2);
    expect(count(html, 'data-testid="pattern-members-toggle"')).toBe(2);
    expect(html).toMatch(/<button type="button" class="link-button pattern-timeline__members-toggle" aria-expanded="false" aria-controls="[^"]+"/);
    expect(html).toContain('Show what the members did (1 member run)');
    // Closed at first: a long run's page stays short.
    expect(html).not.toContain('data-testid="pattern-member"');
  });

  it('members at work before their iteration is recorded are shown open, live', () => {
    const html = renderToStaticMarkup(<PatternTimeline events={supervisorRun.filter((e) => e.seq < 30)} invocationId="summary" />);
    expect(html).toContain('data-testid="pattern-unrecorded"');
    expect(html).toContain('Members at work');
    expect(html).toMatch(/data-testid="pattern-member" data-member="worker#2" data-status="working"/);
  });

  it('a member’s rounds are its own (the recorded round with its teacher’s review); a long list of rounds is virtual: only the cards near view are rendered', () => {
    const few = renderToStaticMarkup(<MemberRounds memberRun="worker#2" events={supervisorRun} invocationId="summary" />);
    expect(count(few, 'data-testid="round-card"')).toBe(1);
    expect(few).not.toContain('data-virtual');
    const oneRound = supervisorRun.filter((e) => e.pattern_member === 'worker#1' && 'round' in e && e.round === 0);
    const many = Array.from({ length: VIRTUAL_ROUNDS_FROM * 10 }, (_, r) => oneRound.map((e, i) => ({ ...e, round: r, seq: 1000 + r * 100 + i, id: `${e.run_id}:${1000 + r * 100 + i}` }) as RunEvent)).flat();
    const html = renderToStaticMarkup(<MemberRounds memberRun="worker#1" events={many} invocationId="summary" />);
    expect(html).toContain('data-virtual="true"');
    expect(html).toContain(`aria-label="Rounds of worker#1 (${VIRTUAL_ROUNDS_FROM * 10})"`);
    expect(count(html, 'data-testid="round-card"')).toBeLessThan(VIRTUAL_ROUNDS_FROM);
  });
});
