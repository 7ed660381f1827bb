import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BOUNDARY_GATES, parseThresholds, SUPERVISOR_GATES } from '@shared/eval/gates';
import { EvalSuite, type EvalReport } from '@shared/eval/report';
import { SpecError } from '../spec/spec-errors';
import { defaultDataDir } from '../util/data-dir';
import { BAD_TEACHERS, type BadTeacher } from './boundary/doubles';
import { runBoundarySuite } from './boundary/suite';
import { writeLatestReport } from './latest-report';
import { formatReport } from './report-table';
import { BAD_POLICIES, type BadSupervisor } from './supervisor/doubles';
import { runSupervisorSuite } from './supervisor/suite';
import type { CliIo } from '../shells/cli/cli-io';
import { VERDICTS_USAGE, verdictsCommand } from './verdicts/verdicts-command';
import { INJECTION_USAGE, injectionCommand } from './injection/injection-command';
import { wrapUsage } from '@shared/util/wrap-usage';

/** `steward eval supervisor|boundary`: run a suite, print its table, keep its report, exit 1 when a gate fails; `steward eval verdicts`: past verdicts as a regression suite (verdicts/); `steward eval injection`: injected instructions against provenance (injection/). */

export const EVAL_USAGE = wrapUsage(`Usage:
  steward eval supervisor [--json FILE] [--min-success GATE=VALUE]... [--case TEXT]
                          [--supervisor reference|${Object.keys(BAD_POLICIES).join('|')}] [--data-dir DIR]
  steward eval boundary   [--json FILE] [--min-success GATE=VALUE]... [--teacher ground-truth|${Object.keys(BAD_TEACHERS).join('|')}] [--data-dir DIR]

  supervisor   fault-injection cases over the reference workflow shapes (batch fan-out, paid
               chain, streaming chain) on replay models and real MCP servers, supervised by a
               scripted double
  boundary     agent tasks on the real filesystem server with a scripted student that makes known
               mistakes, a teacher judging from the ground truth, at lifecycle phases 0–4
  --json         also write the report (JSON) to FILE
  --min-success  move a gate's threshold, e.g. recovery_rate=0.9 (a bare number: the recovery rate)
  --case         only the cases whose id contains TEXT (e.g. fanout, chain.hostile)
  --supervisor / --teacher   a deliberately bad double, to see a gate fail
  The latest report of each suite is kept in the data folder (eval/latest-<suite>.json) for the app.
Exit codes: 0 every gate holds · 1 a gate failed · 2 bad input

${VERDICTS_USAGE.replace(/^Usage:\n/, '').replace(/\nExit codes:/, '\nExit codes of eval verdicts:')}

${INJECTION_USAGE.replace(/^Usage:\n/, '')}`);

type EvalIo = CliIo;

export async function evalCommand(args: string[], io: EvalIo): Promise<number> {
  if (args[0] === 'verdicts') return verdictsCommand(args.slice(1), io);
  if (args[0] === 'injection') return injectionCommand(args.slice(1), io);
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: 'string' },
        'min-success': { type: 'string', multiple: true },
        supervisor: { type: 'string' },
        teacher: { type: 'string' },
        case: { type: 'string' },
        'data-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    throw new SpecError(`${(err as Error).message}\n\n${EVAL_USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${EVAL_USAGE}\n`);
    return 0;
  }
  const suite = EvalSuite.safeParse(positionals[0]);
  if (!suite.success || positionals.length > 1) throw new SpecError(`eval needs one suite: supervisor, boundary, verdicts or injection\n\n${EVAL_USAGE}`);
  const gates = suite.data === 'supervisor' ? SUPERVISOR_GATES : BOUNDARY_GATES;
  const thresholds = parseThresholds(suite.data, values['min-success'] ?? [], gates);
  if (!thresholds.ok) throw new SpecError(thresholds.message);
  if (suite.data === 'supervisor' && values.teacher !== undefined) throw new SpecError('--teacher applies to the boundary suite');
  if (suite.data === 'boundary' && (values.supervisor !== undefined || values.case !== undefined)) throw new SpecError('--supervisor and --case apply to the supervisor suite');
  const dataDir = values['data-dir'] ?? defaultDataDir(io.env);

  const progress = (id: string, outcome: string) => io.stderr(`  ${id} · ${outcome}\n`);
  let report: EvalReport;
  if (suite.data === 'supervisor') {
    const supervisor = values.supervisor ?? 'reference';
    if (supervisor !== 'reference' && !Object.hasOwn(BAD_POLICIES, supervisor)) throw new SpecError(`--supervisor takes reference or ${Object.keys(BAD_POLICIES).join(', ')}`);
    const only = values.case;
    report = await runSupervisorSuite({
      supervisor: supervisor as 'reference' | BadSupervisor,
      thresholds: thresholds.thresholds,
      ...(only !== undefined ? { only: (c: { id: string }) => c.id.includes(only) } : {}),
      onCase: (c) => progress(c.id, c.outcome),
    });
  } else {
    const teacher = values.teacher ?? 'ground-truth';
    if (teacher !== 'ground-truth' && !Object.hasOwn(BAD_TEACHERS, teacher)) throw new SpecError(`--teacher takes ground-truth or ${Object.keys(BAD_TEACHERS).join(', ')}`);
    report = await runBoundarySuite({ teacher: teacher as 'ground-truth' | BadTeacher, thresholds: thresholds.thresholds, onCase: (c) => progress(c.id, c.task_done ? 'task done' : c.status) });
  }
  io.stdout(formatReport(report));
  if (values.json !== undefined) writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
  const kept = writeLatestReport(dataDir, report);
  io.stderr(`steward: report kept as ${kept}\n`);
  return report.passed ? 0 : 1;
}
