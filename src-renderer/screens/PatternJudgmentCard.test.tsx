import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { Intervention } from '@shared/contracts/intervention';
import { HostProvider } from '../app/HostProvider';
import { createHostClient } from '../host/host-client';
import { StewardDb } from '../db/db';
import { FakeTransport } from '../testing/fake-transport';
import { InterventionCard } from './InterventionCard';
import { judgmentAnswer } from './PatternJudgmentCard';

const judgment: Intervention = {
  id: 'run-judge-0001:review:j0.2.0.1',
  run_id: 'run-judge-0001',
  round: 0,
  kind: 'pattern_judgment',
  reason: 'Judge iteration 2 of 3 of the SUPERVISOR pattern review.',
  reason_codes: [],
  options: ['approve', 'reject', 'escalate'],
  requested_at: '2026-12-01T10:00:00.000Z',
  judgment: {
    judgment_id: 'review:j0.2.0.1',
    node: 'review',
    pattern_type: 'SUPERVISOR',
    step: 0,
    steps: 1,
    iteration: 2,
    max_iterations: 3,
    output: 'The report, with a timeline.',
    outputs: [{ id: 'review:o0.2.worker', member_id: 'worker', text: 'The report, with a timeline.' }],
    previous_feedback: 'Add a timeline.',
    min_citations: 1,
    must_cite: ['worker'],
    expires_at: '2026-12-02T10:00:00.000Z',
    fallback: { kind: 'escalate' },
  },
};

function paint(shown: Intervention): string {
  const client = createHostClient(new FakeTransport());
  const db = new StewardDb(`steward-judgment-card-${Math.random().toString(36).slice(2)}`);
  return renderToStaticMarkup(
    <HostProvider client={client} db={db} tokenMissing={false}>
      <InterventionCard intervention={shown} />
    </HostProvider>,
  );
}

describe('the judgment card in “waiting for you”', () => {
  it('shows the output, each member output with a labelled box to cite it (cited by default), the feedback it addresses, the expiry and a labelled feedback box', () => {
    const html = paint(judgment);
    expect(html).toContain('data-kind="pattern_judgment"');
    expect(html).toContain('iteration 2 of 3');
    expect(html).toContain('“Add a timeline.”');
    expect(html).toMatch(/<input id="[^"]*cite-review:o0.2.worker" type="checkbox"[^>]*checked=""/);
    expect(html).toMatch(/<label for="[^"]*cite-review:o0.2.worker">/);
    expect(html).toContain('then the pattern escalates');
    expect(html).toMatch(/<label for="([^"]*-feedback)"[^>]*>Feedback for the next iteration/);
    for (const [action, label] of [['approve', 'Approve'], ['reject', 'Reject with feedback'], ['escalate', 'Escalate']]) expect(html).toMatch(new RegExp(`<button type="button"[^>]*data-testid="judgment-${action}">${label}</button>`));
  });

  it('sends approve and reject with the cited outputs, reject with its feedback, escalate with its reason', () => {
    expect(judgmentAnswer('approve', '', ['a'])).toEqual({ action: 'approve', evidence: ['a'] });
    expect(judgmentAnswer('reject', ' add a timeline ', ['a'])).toEqual({ action: 'reject', evidence: ['a'], note: 'add a timeline' });
    expect(judgmentAnswer('escalate', 'legal', ['a'])).toEqual({ action: 'escalate', note: 'legal' });
  });
});
