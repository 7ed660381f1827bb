import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { ReactNode } from 'react';
import { RunEvent } from '@shared/contracts/events';
import { HostProvider } from '../../app/HostProvider';
import { createHostClient } from '../../host/host-client';
import { StewardDb } from '../../db/db';
import { FakeTransport } from '../../testing/fake-transport';
import waitingJson from '../../testing/recorded/share-waiting.events.json';
import { InterventionsList } from './InterventionsScreen';
import { WaitingChip } from './WaitingChip';
import { WaitingNavLink } from './WaitingNavLink';
import { askedIn, mergeWaiting } from './waiting';

const waiting = RunEvent.array().parse(waitingJson);
const runId = waiting[0]!.run_id;
const items = mergeWaiting({ pending: askedIn(waiting).map((q) => q.intervention), runs: [], asked: new Map([[runId, askedIn(waiting)]]), workflowNames: new Map() });

/** As the page first paints it, inside a host context that never connects. */
function paint(node: ReactNode): string {
  const client = createHostClient(new FakeTransport());
  const db = new StewardDb(`steward-interventions-${Math.random().toString(36).slice(2)}`);
  return renderToStaticMarkup(
    <HostProvider client={client} db={db} tokenMissing={false}>
      {node}
    </HostProvider>,
  );
}

const count = (html: string, needle: string) => html.split(needle).length - 1;

describe('the Interventions view', () => {
  it('lists one row per waiting question with its node, kind and what it asks, linked to the node in its run', () => {
    const html = paint(<InterventionsList items={items} />);
    expect(count(html, 'data-testid="intervention-row"')).toBe(1);
    expect(html).toContain('data-kind="escalation"');
    expect(html).toContain('sharer');
    expect(html).toContain('A person should approve what gets shared.');
    expect(html).toContain(`href="#/runs/${runId}/nodes/sharer"`);
    // Answered in place behind a button a keyboard reaches, closed at first.
    expect(html).toMatch(/<button[^>]*aria-expanded="false"[^>]*>Answer here/);
    expect(html).not.toContain('data-testid="intervention-card"');
  });

  it("names the member of a pattern node whose question it is: node sharer › member critic asks", () => {
    const html = paint(<InterventionsList items={items.map((i) => ({ ...i, member: 'critic' }))} />);
    expect(html).toContain('data-member="critic"');
    expect(html).toMatch(/node <code>sharer<\/code> › member <code>critic<\/code> asks/);
    expect(paint(<InterventionsList items={items} />)).not.toContain('member');
  });

  it('says "Nothing waits for you." when nothing does, what would appear here, and where to see one', () => {
    const html = paint(<InterventionsList items={[]} />);
    expect(html).toContain('data-testid="interventions-empty"');
    expect(html).toContain('<h2>Nothing waits for you.</h2>');
    expect(html).toContain('the question appears here and its run pauses until you answer');
    expect(html).toContain('<a href="#/workflows">Workflows</a>');
    expect(html).not.toContain('data-testid="intervention-row"');
  });
});

describe('the count elsewhere', () => {
  it('the sidebar item carries the count in its name ("Waiting for you: 3", the words it shows) and hides the badge at 0', () => {
    const three = renderToStaticMarkup(<WaitingNavLink count={3} active={false} />);
    expect(three).toContain('aria-label="Waiting for you: 3"');
    expect(three).toMatch(/data-testid="waiting-count"[^>]*>3</);
    expect(three).toContain('href="#/interventions"');
    const none = renderToStaticMarkup(<WaitingNavLink count={0} active={false} />);
    expect(none).toMatch(/data-testid="waiting-count"[^>]*hidden=""/);
    expect(none).not.toContain('aria-label="0 waiting');
  });

  it('a workflow with a question waiting says so on its card, linked to the Interventions view; nothing at 0', () => {
    expect(renderToStaticMarkup(<WaitingChip count={2} />)).toMatch(/<a[^>]*href="#\/interventions"[^>]*>.*2 waiting for you<\/a>/);
    expect(renderToStaticMarkup(<WaitingChip count={0} />)).toBe('');
  });
});
