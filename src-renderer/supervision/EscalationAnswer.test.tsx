import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { HumanAnswer, type Intervention } from '@shared/contracts/intervention';
import type { SupervisorAction } from '@shared/supervisor/contracts';
import { escalation } from '@shared/supervisor/testing/fixtures';
import { HostProvider } from '../app/HostProvider';
import { createHostClient } from '../host/host-client';
import { StewardDb } from '../db/db';
import { FakeTransport } from '../testing/fake-transport';
import { InterventionCard } from '../screens/InterventionCard';
import { verdictAnswer } from './EscalationAnswer';

function waiting(allowed: SupervisorAction[], candidate?: unknown, spent: { spent_usd?: number; unpriced_models?: string[] } = {}): Intervention {
  const e = escalation({ detail: 'ENOENT: no such file or directory, open /notes/missing.md', failure_signature: { errno: 'ENOENT' }, candidate_output: candidate, ...spent });
  return {
    id: 'supervise-0001',
    run_id: 'run-sup-0001',
    round: 0,
    kind: 'supervisor_escalation',
    reason: 'extract failed',
    reason_codes: [],
    options: ['verdict'],
    requested_at: '2026-12-01T10:00:00.000Z',
    supervision: { escalation: { ...e, allowed_actions: allowed }, failure: { code: 'tool_error', message: 'x' }, attempt: 1, refused: [], expires_at: '2026-12-02T10:00:00.000Z' },
  };
}

function paint(shown: Intervention): string {
  const client = createHostClient(new FakeTransport());
  const db = new StewardDb(`steward-escalation-card-${Math.random().toString(36).slice(2)}`);
  return renderToStaticMarkup(
    <HostProvider client={client} db={db} tokenMissing={false}>
      <InterventionCard intervention={shown} />
    </HostProvider>,
  );
}

describe('a supervised node’s escalation in “waiting for you”', () => {
  it('shows the node, the redacted detail, the signature, the decision time, a labelled reason box and a button for exactly the allowed verdicts', () => {
    const html = paint(waiting(['skip', 'fail']));
    expect(html).toContain('data-kind="supervisor_escalation"');
    expect(html).toContain('<code>extract</code>');
    expect(html).toContain('ENOENT: no such file or directory');
    expect(html).toContain('errno ENOENT');
    expect(html).toContain('then the node fails (the default verdict)');
    expect(html).toMatch(/<label for="([^"]*-reason)"[^>]*>Your reason/);
    expect(html).toMatch(/data-testid="escalation-skip">Skip/);
    expect(html).toMatch(/data-testid="escalation-fail">Fail the node/);
    expect(html).not.toContain('escalation-retry');
    expect(html).not.toContain('escalation-substitute');
  });

  it('says what the failed attempt already spent on model calls, measured or unpriced, and nothing when it cost nothing', () => {
    expect(paint(waiting(['skip', 'fail'], undefined, { spent_usd: 0.0042 }))).toMatch(/data-testid="escalation-spent">\$0\.0042 on model calls in the failed attempt: a retry would pay again/);
    expect(paint(waiting(['skip', 'fail'], undefined, { unpriced_models: ['api.example.com:gpt-x'] }))).toContain('an unknown amount (api.example.com:gpt-x: unpriced)');
    expect(paint(waiting(['skip', 'fail']))).not.toContain('escalation-spent');
  });

  it('offers a JSON field for a substitute, filled with the candidate output, only when substitute is allowed', () => {
    const html = paint(waiting(['retry', 'skip', 'substitute', 'fail'], { output: '{"name": "Ada"' }));
    expect(html).toContain('data-testid="escalation-substitute-value"');
    expect(html).toContain('data-testid="escalation-substitute">');
    expect(html).toContain('Substitute output (JSON object');
    expect(html).toContain('data-testid="escalation-retry"');
  });

  it('asked again after a refused substitute, the field holds the person\'s own value to fix, with the reason it was refused', () => {
    const asked = waiting(['skip', 'substitute', 'fail'], { output: 'Sure! Ada.' });
    const supervision = asked.supervision!;
    const html = paint({ ...asked, supervision: { ...supervision, refused: [{ action: 'substitute', value: { output: 'Ada' }, reason: 'by hand' }], feedback: 'refused: output: the value does not match the schema' } });
    expect(html).toContain('does not match the schema');
    const field = /<textarea[^>]*data-testid="escalation-substitute-value"[^>]*>([^<]*)</.exec(html)?.[1] ?? '';
    expect(field.replaceAll('&quot;', '"')).toContain('"output": "Ada"');
    expect(field).not.toContain('Sure!');
  });

  it('sends a verdict answer the host contract accepts, with the reason said (or a plain one)', () => {
    expect(HumanAnswer.parse(verdictAnswer('skip', '  not needed ', undefined))).toEqual({ action: 'verdict', verdict: { action: 'skip', reason: 'not needed' } });
    expect(HumanAnswer.parse(verdictAnswer('substitute', '', { output: 'Ada' }))).toEqual({ action: 'verdict', verdict: { action: 'substitute', value: { output: 'Ada' }, reason: 'decided by a person' } });
  });
});
