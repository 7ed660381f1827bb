import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { HostProvider } from '../app/HostProvider';
import { createHostClient } from '../host/host-client';
import { StewardDb } from '../db/db';
import { FakeTransport } from '../testing/fake-transport';
import { InterventionCard } from './InterventionCard';
import { GOOD_WRITE } from '../testing/event-fixtures';
import type { Intervention } from '@shared/contracts/intervention';

const intervention: Intervention = {
  id: 'run-iv-card-0001:iv:0',
  run_id: 'run-iv-card-0001',
  round: 0,
  kind: 'escalation',
  decision: GOOD_WRITE,
  reason: 'A person should approve writing the summary.',
  reason_codes: ['policy_violation'],
  options: ['approve', 'reject', 'takeover', 'stop'],
  requested_at: '2026-01-05T09:01:00.000Z',
};

function paint(shown: Intervention = intervention): string {
  const client = createHostClient(new FakeTransport());
  const db = new StewardDb(`steward-intervention-card-${Math.random().toString(36).slice(2)}`);
  return renderToStaticMarkup(
    <HostProvider client={client} db={db} tokenMissing={false}>
      <InterventionCard intervention={shown} />
    </HostProvider>,
  );
}

const buttonOf = (html: string, testId: string) => new RegExp(`<button [^>]*data-testid="${testId}"[^>]*>`).exec(html)?.[0] ?? '';

describe('InterventionCard', () => {
  it('Stop the run asks for confirmation first; the answers that let the run go on are sent with one press', () => {
    const html = paint();
    expect(buttonOf(html, 'intervention-stop')).toContain('aria-haspopup="dialog"');
    for (const action of ['approve', 'reject', 'takeover']) {
      expect(buttonOf(html, `intervention-${action}`)).toBeTruthy();
      expect(buttonOf(html, `intervention-${action}`)).not.toContain('aria-haspopup');
    }
  });
});

describe('InterventionCard for a question the agent asks', () => {
  const question: Intervention = {
    ...intervention,
    id: 'run-iv-card-0002:iv:1',
    kind: 'ask_user',
    decision: { decision_type: 'ask_user', question: 'Which note should I summarise?' },
    reason: 'Which note should I summarise?',
    reason_codes: [],
    options: ['reply', 'stop'],
  };

  it('shows the question and a labelled, bounded text box for the reply; Send is disabled until something is typed', () => {
    const html = paint(question);
    expect(html).toContain('Which note should I summarise?');
    expect(html).toContain('The agent asks you');
    const box = /<textarea [^>]*data-testid="intervention-reply-text"[^>]*>/.exec(html)?.[0] ?? '';
    expect(box).toContain('maxLength="4000"');
    const id = /id="([^"]+)"/.exec(box)?.[1];
    expect(html).toContain(`<label for="${id}" class="field__label">Your reply to the agent</label>`);
    expect(buttonOf(html, 'intervention-reply')).toContain('disabled=""');
    expect(html).not.toContain('data-testid="intervention-decision"');
  });
});

describe('InterventionCard: approve with edits', () => {
  it('an escalated tool call offers Edit arguments (a toggle, closed at first); a question has none', () => {
    const toggle = /<button [^>]*data-testid="intervention-edit-arguments"[^>]*>([^<]*)</.exec(paint());
    expect(toggle?.[0]).toContain('aria-expanded="false"');
    expect(toggle?.[1]).toBe('Edit arguments');
    expect(paint({ ...intervention, kind: 'ask_user', decision: { decision_type: 'ask_user', question: 'Which?' }, options: ['reply', 'stop'] })).not.toContain('intervention-edit-arguments');
  });
});

describe('InterventionCard: a tool call that needs your confirmation (issue 28)', () => {
  const confirmation: Intervention = { ...intervention, id: 'run-iv-card-0003:iv:2', kind: 'confirmation', reason: 'write_file needs your confirmation before it runs.', reason_codes: [], options: ['approve', 'reject', 'stop'], rounds_left: 3 };
  const text = (html: string) => html.replace(/<[^>]+>/g, '');

  it('an agent\'s call: reject says the agent tries again and how many rounds it has left, then what happens', () => {
    const html = paint(confirmation);
    expect(/data-testid="intervention-reject"[^>]*>([^<]*)</.exec(html)?.[1]).toBe('Reject; let the agent try again');
    expect(text(/<p [^>]*data-testid="intervention-refusal-hint"[^>]*>.*?<\/p>/.exec(html)?.[0] ?? '')).toBe(
      'Reject; let the agent try again: Nothing runs; the agent is told why (with your note) and proposes again in its next round. It has 3 rounds left; when they are used up, the run stops (Round limit reached).',
    );
    expect(html).toContain('Note for the agent if you reject (optional)');
  });

  it('a workflow step\'s call nobody proposed: Don’t run it, never "let the agent try again", and the note is why', () => {
    const html = paint({ ...confirmation, options: ['approve', 'decline', 'stop'], rounds_left: undefined });
    expect(/data-testid="intervention-decline"[^>]*>([^<]*)</.exec(html)?.[1]).toBe('Don’t run it');
    expect(html).not.toContain('let the agent try again');
    expect(text(/<p [^>]*data-testid="intervention-refusal-hint"[^>]*>.*?<\/p>/.exec(html)?.[0] ?? '')).toBe('Don’t run it: Nothing runs; this step ends declined, and the run’s outcome says you declined it (with your note).');
    expect(html).toContain('Why you don’t run it (optional; the run’s outcome says it)');
  });
});
