import { describe, expect, it } from 'vitest';
import type { RunEventOf } from '@shared/contracts/events';
import { escalation } from '@shared/supervisor/testing/fixtures';
import { formatEscalated } from './format-supervision';

const escalated = (over: Parameters<typeof escalation>[0] = {}): RunEventOf<'supervisor.escalated'> => ({
  type: 'supervisor.escalated',
  id: 'e1',
  run_id: 'run-1',
  seq: 3,
  ts: '2026-12-01T10:00:00.000Z',
  invocation_id: 'extract[each=4]',
  escalation: escalation({ retry_safe: false, ...over }),
});

describe('the ⛨ escalation line', () => {
  it('says what the failed attempt spent on model calls, measured or unpriced, and nothing about cost when it cost nothing', () => {
    expect(formatEscalated(escalated({ spent_usd: 0.0042 }))).toMatch(/^⛨ extract\[each=4\] escalated: invalid_output — the model returned invalid JSON · spent \$0\.0042 \(allowed: skip, substitute, fail\)$/);
    expect(formatEscalated(escalated({ unpriced_models: ['api.example.com:gpt-x'] }))).toContain(' · spent an unknown amount (api.example.com:gpt-x: unpriced) (allowed:');
    expect(formatEscalated(escalated())).not.toContain('spent');
  });
});
