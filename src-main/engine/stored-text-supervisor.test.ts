import { describe, expect, it } from 'vitest';
import type { RunEventPayload } from '@shared/contracts/events';
import { STORED_TEXT_LIMIT_BYTES } from '@shared/util/trim-text';
import { boundModelText } from '@shared/history/model-text';

describe('a supervisor verdict as stored', () => {
  it('a substitute value a model made up is stored trimmed, with its original size listed', () => {
    const huge = 'x'.repeat(STORED_TEXT_LIMIT_BYTES * 3);
    const stored = boundModelText<RunEventPayload>({
      type: 'supervisor.verdict',
      invocation_id: 'extract',
      node: 'extract',
      next: 'done',
      verdict: { escalation_id: 'extract#1', decided_by: 'agent', turns: 1, cost_usd: 0, verdict: { action: 'substitute', value: { text: huge }, reason: 'repaired' } },
    });
    const value = stored.type === 'supervisor.verdict' && stored.verdict.verdict.action === 'substitute' ? stored.verdict.verdict.value : {};
    expect(String(value.text).length).toBeLessThan(huge.length);
    expect(stored).toMatchObject({ trimmed: [{ path: 'verdict.verdict.value.text', original_bytes: huge.length }] });
  });
});
