import { describe, expect, it } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import { formatScsEvent } from './format-scs';

const envelope = (seq: number) => ({ id: `run-cli-0001:${String(seq).padStart(6, '0')}`, run_id: 'run-cli-0001', seq, ts: '2026-01-01T00:00:00.000Z' });
const plan = { phase_goal: 'Collect the action items', plan: ['List', 'Read', 'Collect'], acceptance_criteria: ['each item quoted'], allowed_tools: ['read_text_file'], stop_conditions: [] };
const decision = (next?: string) => ({ decision: 'accept_phase', confidence: 0.8, evidence: [], reason: 'summary.md exists', ...(next ? { next_required_action: next } : {}) });

describe('the CLI shows SCS phase changes as compact lines', () => {
  it('an accepted phase says where it leads, the next phase says its number and goal, a stopped phase its condition', () => {
    const lines = [
      { type: 'scs.student.phase_accepted', ...envelope(1), phase: 1, trigger: 'periodic', decision: decision(), budget: 8 },
      { type: 'scs.student.phase_accepted', ...envelope(2), phase: 1, trigger: 'periodic', decision: decision('supervisor_continue'), budget: 8 },
      { type: 'scs.student.phase_accepted', ...envelope(3), phase: 1, trigger: 'periodic', decision: decision('finish'), budget: 8 },
      { type: 'scs.supervisor.phase_started', ...envelope(4), phase: 2, plan },
      {
        type: 'scs.supervisor.phase_stopped',
        ...envelope(5),
        phase: 2,
        round: 4,
        condition: 'the notes are missing ("ENOENT")',
        matched: 'the result of round 5 contains "ENOENT"',
        evidence: ['run-cli-0001:000040'],
        changed_files: [{ round: 3, tool: 'write_file', target: 'summary.md', result: 'ok', ok: true }],
      },
    ].map((e) => formatScsEvent(RunEvent.parse(e)));
    expect(lines).toEqual([
      'scs student accepted phase 1 confidence=0.80 → next phase',
      'scs student accepted phase 1 confidence=0.80 (phase continues)',
      'scs student accepted phase 1 confidence=0.80 → finish',
      'scs supervisor started phase 2: Collect the action items',
      'scs supervisor stopped phase 2: stop condition "the notes are missing ("ENOENT")" (the result of round 5 contains "ENOENT"), 1 changed file(s)',
    ]);
  });
});
