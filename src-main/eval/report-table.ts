import type { BoundaryEvalReport, EvalReport, GateResult, SupervisorEvalReport } from '@shared/eval/report';

/** The readable table `steward eval` prints: the cases, the metrics, the gates, and the verdict. */

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd());
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const num = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(3));

function gateLines(gates: GateResult[]): string[] {
  return table([
    ['gate', 'value', 'threshold', 'result'],
    ...gates.map((g) => [g.label, num(g.value), `${g.comparator} ${num(g.threshold)}`, g.passed ? 'pass' : 'FAIL']),
  ]);
}

function supervisorLines(r: SupervisorEvalReport): string[] {
  const m = r.metrics;
  return [
    ...table([
      ['case', 'fault', 'outcome', 'calls', 'decided (agent/sticky/bounds/default/kernel)', 'skips (wrong)', 'ms'],
      ...r.cases.map((c) => [
        c.id,
        c.fault,
        c.outcome,
        String(c.supervisor_calls),
        `${c.verdicts.agent}/${c.verdicts.sticky}/${c.verdicts.bounds}/${c.verdicts.default}/${c.verdicts.kernel}`,
        `${c.skips} (${c.incorrect_skips})`,
        String(Math.round(c.duration_ms)),
      ]),
    ]),
    '',
    ...table([
      ['metric', 'value'],
      ['recovery rate', `${pct(m.recovery_rate)} (${m.recovered}/${m.recoverable_cases} recoverable cases)`],
      ['contained', `${m.contained}/${m.not_recoverable_cases} cases not recoverable here`],
      ['incorrect-skip rate', `${pct(m.incorrect_skip_rate)} (${m.incorrect_skips}/${m.skips} skips)`],
      ['poisoned-repair rate', `${pct(m.poisoned_repair_rate)} (${m.poisoned_repairs}/${m.substitutes} substitutes)`],
      ['duplicate effects', String(m.duplicate_effects)],
      ['cost overruns', String(m.cost_overruns)],
      ['supervisor calls on clean runs', String(m.clean_run_supervisor_calls)],
      ['verdicts applied outside the allowed set', String(m.outside_allowed_applied)],
    ]),
  ];
}

function boundaryLines(r: BoundaryEvalReport): string[] {
  const m = r.metrics;
  return [
    ...table([
      ['case', 'status', 'rounds', 'teacher calls', 'unsafe', 'missed protected', 'false blocks', 'mistakes reviewed/replaced/unreviewed', 'task done'],
      ...r.cases.map((c) => [c.id, c.status, String(c.rounds), String(c.teacher_calls), String(c.unsafe_executions), String(c.missed_protected), String(c.false_blocks), `${c.mistakes_reviewed}/${c.replaced}/${c.mistakes_unreviewed}`, c.task_done ? 'yes' : 'no']),
    ]),
    '',
    ...table([
      ['phase', 'rounds', 'teacher calls', 'per round'],
      ...Object.entries(m.by_phase).map(([phase, f]) => [phase, String(f.rounds), String(f.teacher_calls), f.teacher_calls_per_round.toFixed(2)]),
    ]),
    '',
    ...table([
      ['metric', 'value'],
      ['unsafe executions', String(m.unsafe_executions)],
      ['protected effects run unreviewed below phase 4', String(m.protected_unreviewed_below_phase4)],
      ['protected effects no review saw', String(m.missed_protected_effects)],
      ['false blocks', `${m.false_blocks} (${pct(m.false_block_rate)} of reviewed correct decisions)`],
      ['recovery through replacement', `${pct(m.replacement_recovery_rate)} (${m.replaced}/${m.mistakes_reviewed} reviewed mistakes)`],
      ['phase 3 / phase 2 teacher calls per round', m.phase3_teacher_call_ratio.toFixed(2)],
    ]),
  ];
}

/** What each case noted (what the host could not exercise, what went wrong), one line each. */
function noteLines(r: EvalReport): string[] {
  const lines = r.cases.flatMap((c) => c.notes.map((n) => `  ${c.id}: ${n}`));
  return lines.length === 0 ? [] : ['notes', ...lines, ''];
}

export function formatReport(r: EvalReport): string {
  const failed = r.gates.filter((g) => !g.passed);
  return [
    `steward eval ${r.suite} · ${r.supervisor} · ${r.cases.length} cases · ${(r.duration_ms / 1000).toFixed(1)} s`,
    '',
    ...(r.suite === 'supervisor' ? supervisorLines(r) : boundaryLines(r)),
    '',
    ...noteLines(r),
    ...gateLines(r.gates),
    '',
    failed.length === 0 ? `PASSED: all ${r.gates.length} gates hold` : `FAILED: ${failed.map((g) => g.label).join(', ')}`,
    '',
  ].join('\n');
}
