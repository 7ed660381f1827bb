import { describe, expect, it } from 'vitest';
import { RoundRecord } from '@shared/contracts/round';
import { formatRound } from './format-round';

const read = { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: 'notes.md' } } as const;
const record = (givenAgain: boolean) =>
  RoundRecord.parse({
    round: 1,
    proposer: 'student',
    candidate: {},
    repairs: [],
    verdicts: [],
    review: { required: false, rule: 'not_required' },
    selected: { source: 'student', decision: read },
    authorization: { ok: true, idempotency_key: 'idem-key-0001', ...(givenAgain ? { recorded_result: true } : {}) },
    history_index: 0,
    execution: { server: 'fs', tool: 'read_text_file', arguments: { path: 'notes.md' }, idempotency_key: 'idem-key-0001', ok: true, is_error: false, content: 'notes', duration_ms: givenAgain ? 0 : 3 },
    outcome: 'executed',
  });

describe('a round at the terminal', () => {
  it('a call made before a stop, its result given again, says so; one made now says executed', () => {
    expect(formatRound(record(true))).toContain('→ given the result it got before the stop (made once, not called again)');
    expect(formatRound(record(false))).toContain('→ executed');
    expect(formatRound(record(false))).not.toContain('before the stop');
  });
});
