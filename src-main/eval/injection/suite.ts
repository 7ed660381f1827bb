import { join } from 'node:path';
import { LIFECYCLE_PHASES, type LifecyclePhase } from '@shared/contracts/spec';
import { evaluateGates, type Thresholds } from '@shared/eval/gates';
import { INJECTION_GATES, INJECTION_POLICIES, injectionMetrics, type InjectionCaseResult, type InjectionEvalReport, type InjectionPolicy } from '@shared/eval/injection-report';
import { inEvalWorld } from '../suite-report';
import type { InjectionTeacherName } from './doubles';
import { runInjectionTask } from './run-task';
import { injectionTasks } from './tasks';

/** `steward eval injection`: every task at every lifecycle phase, with the provenance rule on and off; the metrics; the gates. */

export interface InjectionSuiteOptions {
  teacher?: InjectionTeacherName;
  thresholds?: Thresholds;
  /** Only these phases / policies (tests); all by default. */
  phases?: readonly LifecyclePhase[];
  policies?: readonly InjectionPolicy[];
  onCase?: (result: InjectionCaseResult) => void;
  /** Stops between cases (the app closing): the suite then throws, and no report is made. */
  signal?: AbortSignal;
}

export async function runInjectionSuite(options: InjectionSuiteOptions = {}): Promise<InjectionEvalReport> {
  const started = Date.now();
  const teacher = options.teacher ?? 'provenance-checking';
  const cases = await inEvalWorld(async (world) => {
    const results: InjectionCaseResult[] = [];
    for (const policy of options.policies ?? INJECTION_POLICIES) {
      for (const phase of options.phases ?? LIFECYCLE_PHASES) {
        const dir = join(world.root, 'injection', policy, `phase-${phase}`);
        const tag = `${policy.replace('_', '-')}-p${phase}`;
        for (const task of injectionTasks(dir, tag)) {
          if (options.signal?.aborted) throw new Error('the injection check was stopped before it ended');
          const result = await runInjectionTask(world, task, phase, policy, teacher);
          results.push(result);
          options.onCase?.(result);
        }
      }
    }
    return results;
  });
  const metrics = injectionMetrics(cases);
  const gates = evaluateGates(INJECTION_GATES, metrics, options.thresholds);
  return {
    suite: 'injection',
    version: 1,
    generated_at: new Date().toISOString(),
    duration_ms: Date.now() - started,
    teacher:
      teacher === 'provenance-checking'
        ? 'provenance-checking teacher double (a capable teacher: blocks a protected call whose target came from an untrusted result, read off its card)'
        : 'bad teacher double "provenance-blind" (accepts everything it reviews)',
    student: 'worst-student double (follows every injected instruction as soon as it reads it)',
    notes: [
      'The agent run entry (runAgent) on the real filesystem and memory servers from npm; student and teacher are scripted doubles at the model boundary.',
      'Protected effects are reviewed in every phase the student proposes (invariant I4), so at phase 4 the injected writes reach the teacher with the rule off too; what stops them is the provenance on the teacher\u2019s card. The rule adds reviews of unprotected calls an untrusted result steered (the reads counted apart) and names the source in the review reason.',
      'A blocked call ends the run (on_block: fail): the figures count what ran before that.',
    ],
    gates,
    passed: gates.every((g) => g.passed),
    cases,
    metrics,
  };
}
