import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventId } from '@shared/contracts/events';
import { exportLearning } from './export-learning';

const RUN = 'run-deep-trace';
const envelope = (seq: number) => ({ id: eventId(RUN, seq), run_id: RUN, seq, ts: new Date(0).toISOString() });

describe('a trace line nested 100,000 levels deep', () => {
  it('is skipped and reported by line with a clear reason; the export still runs — never a stack overflow', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'steward-deep-trace-'));
    try {
      const path = join(dir, 'trace.jsonl');
      const deep = '['.repeat(100_000) + ']'.repeat(100_000);
      const example = { type: 'learning.example', ...envelope(1), round: 0, kind: 'review', rule: 'review_all', verdict: { verdict: 'replace', reason_codes: ['other'], explanation: 'x', replacement: { decision_type: 'complete', output: 'ok' } }, final_decision: { decision_type: 'complete', output: 'ok' }, context: [{ role: 'user', content: 'Task: x' }], reason_codes: ['other'], agreement: false, models: { student: 's', teacher: 't' } };
      const line = JSON.stringify({ ...example, student_candidate: '__DEEP__' }).replace('"__DEEP__"', deep);
      writeFileSync(path, `${JSON.stringify({ type: 'round.started', ...envelope(0), round: 0, proposer: 'student' })}\n${line}\n`);
      const out: string[] = [];
      const summary = await exportLearning({ trace: path, out: (text) => out.push(text), format: 'preference' }).catch((error: unknown) => (error as Error).message);
      expect(JSON.stringify(summary)).not.toMatch(/call stack/);
      expect(JSON.stringify(summary)).toMatch(/JSON nested deeper than \d+ levels/);
      expect(JSON.stringify(summary)).toMatch(/"line":2/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
