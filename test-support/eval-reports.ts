import { BOUNDARY_GATES, evaluateGates, SUPERVISOR_GATES } from '../src-shared/eval/gates';
import { boundaryMetrics, supervisorMetrics, supervisorOutcome } from '../src-shared/eval/metrics';
import type { BoundaryEvalReport, SupervisorCaseResult, SupervisorEvalReport } from '../src-shared/eval/report';

/** Eval reports as a suite writes them, made from a few hand-written cases (the app and host tests show and serve them). */

function supervisorCase(id: string, over: Partial<SupervisorCaseResult>): SupervisorCaseResult {
  const facts = { fault: 'poisoned_item' as const, recoverable: true, status: 'completed', semantic_ok: true, supervisor_calls: 1, incorrect_skips: 0, poisoned_repairs: 0, duplicate_effects: 0, cost_overrun: false, outside_allowed_applied: 0, ...over };
  return { id, shape: 'batch_fanout', injects: 'x', ...facts, outcome: supervisorOutcome(facts), decisions: 1, verdicts: { agent: 1, sticky: 6, bounds: 0, default: 0, kernel: 0 }, skips: 7, substitutes: 0, notes: [], duration_ms: 12 };
}

export function supervisorReport(over: { incorrectSkips?: number } = {}): SupervisorEvalReport {
  const cases = [supervisorCase('fanout.poisoned', { incorrect_skips: over.incorrectSkips ?? 0 }), supervisorCase('fanout.clean', { fault: 'none', supervisor_calls: 0 })];
  const metrics = supervisorMetrics(cases);
  const gates = evaluateGates(SUPERVISOR_GATES, metrics);
  return { suite: 'supervisor', version: 1, generated_at: '2026-12-01T13:00:00.000Z', duration_ms: 2000, supervisor: 'reference double', notes: [], cases, metrics, gates, passed: gates.every((g) => g.passed) };
}

export function boundaryReport(): BoundaryEvalReport {
  const base = { status: 'completed', mistakes: { unsafe_write: 1, wrong_tool: 1, bad_arguments: 0, premature_finish: 0, injected_instruction: 0 }, rounds: 16, unsafe_executions: 0, protected_unreviewed: 0, missed_protected: 0, false_blocks: 0, correct_reviewed: 14, mistakes_reviewed: 2, replaced: 2, mistakes_unreviewed: 0, task_done: true, notes: [], duration_ms: 10 };
  const cases = [
    { id: 'episode-1@phase-2', phase: 2 as const, teacher_calls: 16, ...base },
    { id: 'episode-1@phase-3', phase: 3 as const, teacher_calls: 4, ...base },
  ];
  const metrics = boundaryMetrics(cases);
  const gates = evaluateGates(BOUNDARY_GATES, metrics);
  return { suite: 'boundary', version: 1, generated_at: '2026-12-01T13:05:00.000Z', duration_ms: 3000, supervisor: 'ground-truth teacher double', notes: [], cases, metrics, gates, passed: gates.every((g) => g.passed) };
}
