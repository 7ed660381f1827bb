import { describe, expect, it } from 'vitest';
import type { RunEventOf } from '@shared/contracts/events';
import { escalation } from '@shared/supervisor/testing/fixtures';
import { formatEscalated } from './format-supervision';

/** The ⛨ escalation line names what the failed attempt created (issue 29), so a person deciding at the terminal sees why retry is not offered. */

const escalated = (created_assets: string[]): RunEventOf<'supervisor.escalated'> => ({
  type: 'supervisor.escalated',
  id: 'e1',
  run_id: 'run-1',
  seq: 3,
  ts: '2026-12-01T10:00:00.000Z',
  invocation_id: 'writer[each=1]',
  escalation: escalation({ retry_safe: false, created_assets }),
});

describe('the ⛨ escalation line: what the attempt created', () => {
  it('names the first asset and how many more; says nothing when nothing was created', () => {
    expect(formatEscalated(escalated(['fs/write_file: /notes/item-1.md', 'fs/create_directory: /notes/d']))).toContain(' · created fs/write_file: /notes/item-1.md and 1 more (allowed: ');
    expect(formatEscalated(escalated(['fs/write_file: /notes/item-1.md']))).toMatch(/ · created fs\/write_file: \/notes\/item-1\.md \(allowed: [a-z, ]+\)$/);
    expect(formatEscalated(escalated([]))).not.toContain('created');
  });
});
