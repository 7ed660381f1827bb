import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { Intervention } from '@shared/contracts/intervention';
import { escalation } from '@shared/supervisor/testing/fixtures';
import { HostProvider } from '../app/HostProvider';
import { createHostClient } from '../host/host-client';
import { StewardDb } from '../db/db';
import { FakeTransport } from '../testing/fake-transport';
import { InterventionCard } from '../screens/InterventionCard';

/** The escalation card says what the failed attempt created (issue 29): why retry is not among its buttons. */

function waiting(created_assets: string[]): Intervention {
  const e = escalation({ detail: 'the agent ran out of rounds', failure_signature: {}, created_assets, retry_safe: true });
  return {
    id: 'supervise-0002',
    run_id: 'run-sup-0002',
    round: 0,
    kind: 'supervisor_escalation',
    reason: 'writer failed',
    reason_codes: [],
    options: ['verdict'],
    requested_at: '2026-12-01T10:00:00.000Z',
    supervision: { escalation: e, failure: { code: 'agent_failed', message: 'x' }, attempt: 1, refused: [], expires_at: '2026-12-02T10:00:00.000Z' },
  };
}

function paint(shown: Intervention): string {
  const client = createHostClient(new FakeTransport());
  const db = new StewardDb(`steward-escalation-created-${Math.random().toString(36).slice(2)}`);
  return renderToStaticMarkup(
    <HostProvider client={client} db={db} tokenMissing={false}>
      <InterventionCard intervention={shown} />
    </HostProvider>,
  );
}

describe('a supervised node’s escalation: what the failed attempt created', () => {
  it('lists each asset under “Already created”, and no retry button; nothing of it when nothing was created', () => {
    const html = paint(waiting(['fs/write_file: /notes/item-1.md', 'memory/create_entities: entity Ada']));
    expect(html).toContain('data-testid="escalation-created"');
    expect(html).toContain('<code>fs/write_file: /notes/item-1.md</code>');
    expect(html).toContain('<code>memory/create_entities: entity Ada</code>');
    expect(html).not.toContain('escalation-retry');
    const none = paint(waiting([]));
    expect(none).not.toContain('escalation-created');
    expect(none).toContain('data-testid="escalation-retry"');
  });
});
