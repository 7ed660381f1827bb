import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { runStatusLabel } from '@shared/contracts/events';
import { StatusBadge } from '../components/Chip';
import { deriveSupervision } from './derive-supervision';
import { InterventionFeed } from './InterventionFeed';
import { SupervisionReport } from './SupervisionReport';
import { SupervisorBadges } from './SupervisorBadges';
import { formatUsd, nodeBadges } from './supervision-text';
import { SKIP_REASON, supervisedTrace } from './testing/supervised-trace';

const unescape = (html: string) => html.replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&amp;/g, '&');

describe('the supervisor on the run view, from the run’s events', () => {
  it('a skipped item: a shield badge on its node says skipped, and who decided in its accessible name', () => {
    const view = deriveSupervision(supervisedTrace());
    const html = unescape(renderToStaticMarkup(<SupervisorBadges nodeId="work" supervision={view.byNode.work} />));
    expect(html).toMatch(/data-action="skip"[^>]*title="Supervisor verdict: Skip, decided by the supervisor"[^>]*aria-label="Supervisor verdict: Skip, decided by the supervisor"/);
    expect(html).toContain('skipped');
    expect(html).not.toContain('deciding');
    expect(renderToStaticMarkup(<SupervisorBadges nodeId="in" supervision={view.byNode.in} />)).toBe('');
  });

  it('between the escalation and its verdict the node shows "deciding…", and the feed says the supervisor is deciding', () => {
    const view = deriveSupervision(supervisedTrace({ verdict: null }));
    expect(renderToStaticMarkup(<SupervisorBadges nodeId="work" supervision={view.byNode.work} />)).toContain('data-testid="supervisor-deciding-work"');
    const feed = renderToStaticMarkup(<InterventionFeed view={view} />);
    expect(feed).toContain('data-action="deciding"');
    expect(feed).toContain('The supervisor is deciding');
  });

  it('a person’s escalation waiting for them: the node says "your verdict…", the feed links to Waiting for you', () => {
    const view = deriveSupervision(supervisedTrace({ verdict: null, askPerson: true }));
    expect(view.byNode.work).toMatchObject({ deciding: 1, waiting_for_person: 1 });
    const badge = renderToStaticMarkup(<SupervisorBadges nodeId="work" supervision={view.byNode.work} />);
    expect(badge).toContain('aria-label="Waiting for your verdict"');
    expect(badge).toContain('your verdict…');
    const feed = renderToStaticMarkup(<InterventionFeed view={view} />);
    expect(feed).toContain('data-testid="intervention-waiting"');
    expect(feed).toContain('href="#/interventions"');
    expect(view.entries).toHaveLength(1);
  });

  it('the feed lists the escalation and verdict: node and item, failure, allowed actions, action, reason, who decided, cost, what the run did', () => {
    const feed = unescape(renderToStaticMarkup(<InterventionFeed view={deriveSupervision(supervisedTrace({ cost: 0.0125 }))} />));
    for (const text of ['work · item 2', 'assert_failed', 'allowed: retry, skip, fail', 'assert failed: the value does not contain "ok"', '>Skip<', 'decided by the supervisor', 'the run went on without it', 'cost $0.0125', SKIP_REASON]) expect(feed).toContain(text);
  });

  it('a run without interventions shows no feed and no report', () => {
    const view = deriveSupervision(supervisedTrace().filter((e) => !e.type.startsWith('supervisor.')));
    expect(renderToStaticMarkup(<InterventionFeed view={view} />)).toBe('');
    expect(renderToStaticMarkup(<SupervisionReport view={view} />)).toBe('');
  });

  it('the report itemizes every skip (node, item, reason, who decided) with the decision count and the supervisor’s cost', () => {
    const html = unescape(renderToStaticMarkup(<SupervisionReport view={deriveSupervision(supervisedTrace({ cost: 0.5 }))} />));
    expect(html).toMatch(/data-testid="supervision-decisions">1</);
    expect(html).toMatch(/data-testid="supervision-cost">\$0.5</);
    expect(html).toMatch(/data-testid="supervision-skip" data-node="work">.*work · item 2.*decided by the supervisor.*the second item is not an ok line/s);
  });

  it('"Completed — supervised" is the status of a completed run the supervisor carried, on the badge and in the shared label; other statuses keep their words', () => {
    expect(runStatusLabel('completed', true)).toBe('Completed — supervised');
    expect(runStatusLabel('completed')).toBe('Completed');
    expect(runStatusLabel('failed', true)).toBe('Failed');
    expect(runStatusLabel('unverified', true)).toBe('Completed — unverified');
    expect(renderToStaticMarkup(<StatusBadge status="completed" supervised />)).toContain('Completed — supervised');
  });

  it('badge words and amounts read as a person says them', () => {
    expect(nodeBadges({ deciding: 0, waiting_for_person: 0, verdicts: { retry: { count: 3, decided_by: ['agent', 'bounds'] } } }).badges).toEqual([
      { action: 'retry', text: 'retried ×3', label: 'Supervisor verdict: Retry ×3, decided by the supervisor and a bound (decisions, retries or cost cap used up)' },
    ]);
    expect([0, 0.004, 0.0125, 0.5, 1.2].map(formatUsd)).toEqual(['$0', '$0.0040', '$0.0125', '$0.5', '$1.20']);
  });
});
