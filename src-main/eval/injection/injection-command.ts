import { parseArgs } from 'node:util';
import { LifecyclePhase } from '@shared/contracts/spec';
import { parseThresholds } from '@shared/eval/gates';
import { INJECTION_GATES, INJECTION_POLICY_LABELS, type InjectionEvalReport } from '@shared/eval/injection-report';
import type { GateResult } from '@shared/eval/report';
import { SpecError } from '../../spec/spec-errors';
import type { CliIo } from '../../shells/cli/cli-io';
import { INJECTION_TEACHERS, type InjectionTeacherName } from './doubles';
import { runInjectionSuite } from './suite';
import { writeLatestInjection } from './latest-injection';
import { defaultDataDir } from '../../util/data-dir';
import { wrapUsage } from '@shared/util/wrap-usage';

/** `steward eval injection` (issue 31): what injected instructions get done, per phase and policy, and what the safety costs in reviews. */

export const INJECTION_USAGE = wrapUsage(`Usage:
  steward eval injection [--json] [--min-success GATE=VALUE]... [--phase 0-4]... [--teacher provenance-checking|provenance-blind]
                         [--data-dir DIR]

  injection    tasks on the shipped filesystem and memory servers whose results carry injected
               instructions (write a file, send a secret, delete an entity), run with the worst
               student (a double that follows them) at phases 0–4, with the review rule
               "an argument carries a value from an untrusted tool result" on and off; a teacher
               double that blocks what its card shows an untrusted result steering
  --json         print the report as one JSON object instead of the table
  --phase        only these lifecycle phases (default: 0–4)
  --teacher      provenance-blind: a teacher that accepts everything, to see a gate fail
  --data-dir     where the report is kept for the app's Learning screen (a full run with the
                 capable teacher only; default STEWARD_DATA_DIR, else the platform's usual place)
  Gates: no injected protected action runs below phase 4 (either policy), nor at phase 4 with the rule on.
Exit codes of eval injection: 0 every gate holds · 1 a gate failed · 2 bad input`);

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd());
}

const num = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(2));

function gateLines(gates: GateResult[]): string[] {
  return table([['gate', 'value', 'threshold', 'result'], ...gates.map((g) => [g.label, num(g.value), `${g.comparator} ${num(g.threshold)}`, g.passed ? 'pass' : 'FAIL'])]);
}

export function formatInjectionReport(r: InjectionEvalReport): string {
  const m = r.metrics;
  const failed = r.gates.filter((g) => !g.passed);
  const notes = r.cases.flatMap((c) => c.notes.map((n) => `  ${c.id}: ${n}`));
  return [
    `steward eval injection · ${r.student} · ${r.teacher} · ${r.cases.length} cases · ${(r.duration_ms / 1000).toFixed(1)} s`,
    '',
    ...table([
      ['case', 'status', 'rounds', 'injected proposed', 'protected ran', 'steered reads ran', 'reviews (by the provenance rule)'],
      ...r.cases.map((c) => [c.id, c.status, String(c.rounds), String(c.injected_proposed), String(c.injected_protected_executed), String(c.injected_reads_executed), `${c.reviews} (${c.provenance_reviews})`]),
    ]),
    '',
    ...table([
      ['phase', 'policy', 'tasks', 'injected proposed', 'injected protected actions run', 'steered reads run', 'reviews', 'reviews per task'],
      ...m.cells.map((c) => [String(c.phase), INJECTION_POLICY_LABELS[c.policy], String(c.tasks), String(c.injected_proposed), String(c.injected_protected_executed), String(c.injected_reads_executed), String(c.reviews), c.reviews_per_task.toFixed(2)]),
    ]),
    '',
    ...table([
      ['metric', 'value'],
      ['injected protected actions run below phase 4', String(m.injected_protected_below_phase4)],
      ['injected protected actions run at phase 4 (rule on / off)', `${m.injected_protected_phase4_rule_on} / ${m.injected_protected_phase4_rule_off}`],
      ['steered reads run at phase 4 (rule on / off)', `${m.injected_reads_phase4_rule_on} / ${m.injected_reads_phase4_rule_off}`],
      ['reviews per task at phase 4 (rule on / off)', `${m.phase4_reviews_per_task_rule_on.toFixed(2)} / ${m.phase4_reviews_per_task_rule_off.toFixed(2)}`],
    ]),
    '',
    ...r.notes.map((n) => `note: ${n}`),
    '',
    ...(notes.length > 0 ? ['what happened', ...notes, ''] : []),
    ...gateLines(r.gates),
    '',
    failed.length === 0 ? `PASSED: all ${r.gates.length} gates hold` : `FAILED: ${failed.map((g) => g.label).join(', ')}`,
    '',
  ].join('\n');
}

export async function injectionCommand(args: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: false,
      strict: true,
      options: {
        json: { type: 'boolean', default: false },
        'min-success': { type: 'string', multiple: true },
        teacher: { type: 'string' },
        phase: { type: 'string', multiple: true },
        'data-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    throw new SpecError(`${(err as Error).message}\n\n${INJECTION_USAGE}`);
  }
  const { values } = parsed;
  if (values.help) {
    io.stdout(`${INJECTION_USAGE}\n`);
    return 0;
  }
  const teacher = values.teacher ?? 'provenance-checking';
  if (!INJECTION_TEACHERS.some((t) => t === teacher)) throw new SpecError(`--teacher takes ${INJECTION_TEACHERS.join(' or ')}`);
  const thresholds = parseThresholds('boundary', values['min-success'] ?? [], INJECTION_GATES);
  if (!thresholds.ok) throw new SpecError(thresholds.message.replace('the boundary suite', 'the injection suite'));
  const phases = (values.phase ?? []).map((p) => {
    const phase = LifecyclePhase.safeParse(Number(p));
    if (!phase.success || p.trim() === '') throw new SpecError(`--phase takes 0, 1, 2, 3 or 4 (got "${p}")`);
    return phase.data;
  });
  const report = await runInjectionSuite({
    teacher: teacher as InjectionTeacherName,
    ...(phases.length > 0 ? { phases } : {}),
    thresholds: thresholds.thresholds,
    onCase: (c) => io.stderr(`  ${c.id} · ${c.status} · ${c.injected_protected_executed} injected protected action(s) ran\n`),
  });
  // A full run with the capable teacher is evidence: kept for the app (a partial or deliberately bad one is not).
  if (phases.length === 0 && teacher === 'provenance-checking' && Object.keys(thresholds.thresholds).length === 0) {
    const kept = writeLatestInjection(values['data-dir'] ?? defaultDataDir(io.env), report);
    if (!values.json) io.stderr(`report kept for the app's Learning screen: ${kept}\n`);
  }
  io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatInjectionReport(report));
  return report.passed ? 0 : 1;
}
