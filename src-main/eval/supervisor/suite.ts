import { SUPERVISOR_GATES, type Thresholds } from '@shared/eval/gates';
import { supervisorMetrics } from '@shared/eval/metrics';
import type { SupervisorCaseResult, SupervisorEvalReport } from '@shared/eval/report';
import { inEvalWorld, reportHead } from '../suite-report';
import { SUPERVISOR_CASES, type SupervisorCase } from './cases';
import { BAD_POLICIES, referencePolicy, type BadSupervisor, type DoublePolicy } from './doubles';
import { runSubstituteCase, runSupervisorCase } from './run-case';

/** `steward eval supervisor`: every case, its metrics, the gates. */

export interface SupervisorSuiteOptions {
  /** The supervisor every non-hostile case gets: the reference double unless a bad one is named. */
  supervisor?: 'reference' | BadSupervisor;
  thresholds?: Thresholds;
  /** Only these cases (tests); all by default. */
  only?: (c: SupervisorCase) => boolean;
  onCase?: (result: SupervisorCaseResult) => void;
}

export async function runSupervisorSuite(options: SupervisorSuiteOptions = {}): Promise<SupervisorEvalReport> {
  const started = Date.now();
  const name = options.supervisor ?? 'reference';
  const policy: DoublePolicy = name === 'reference' ? referencePolicy : BAD_POLICIES[name];
  const cases = await inEvalWorld(async (world) => {
    const results: SupervisorCaseResult[] = [];
    for (const c of SUPERVISOR_CASES.filter(options.only ?? (() => true))) {
      const result = c.kind === 'run' ? await runSupervisorCase(c, world, policy) : await runSubstituteCase(c, world, policy);
      results.push(result);
      options.onCase?.(result);
    }
    return results;
  });
  const metrics = supervisorMetrics(cases);
  const who = name === 'reference' ? 'reference double (rule-based, decides from the escalation only)' : `bad double "${name}" (deliberately wrong)`;
  const notes = [
    'Replay models and real MCP servers (filesystem, memory); every case is supervised by a scripted double at the model boundary.',
    'Hostile cases bring their own supervisor; the kernel must contain it.',
  ];
  return { suite: 'supervisor', ...reportHead(started, who, notes, SUPERVISOR_GATES, metrics, options.thresholds), cases, metrics };
}
