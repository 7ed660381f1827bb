import { LIFECYCLE_PHASES, type LifecyclePhase } from '@shared/contracts/spec';
import { BOUNDARY_GATES, type Thresholds } from '@shared/eval/gates';
import { boundaryMetrics } from '@shared/eval/metrics';
import type { BoundaryCaseResult, BoundaryEvalReport } from '@shared/eval/report';
import { inEvalWorld, reportHead } from '../suite-report';
import { BAD_TEACHERS, groundTruthTeacher, type BadTeacher } from './doubles';
import { runBoundaryEpisode } from './run-episode';

/** `steward eval boundary`: every episode at every lifecycle phase, the metrics, the gates. */

/** Episodes per phase: 5 × 2 mistakes covers each of the 5 kinds twice. */
export const BOUNDARY_EPISODES = 5;

export interface BoundarySuiteOptions {
  teacher?: 'ground-truth' | BadTeacher;
  thresholds?: Thresholds;
  episodes?: number;
  /** Only these phases (tests); all five by default. */
  phases?: readonly LifecyclePhase[];
  onCase?: (result: BoundaryCaseResult) => void;
}

export async function runBoundarySuite(options: BoundarySuiteOptions = {}): Promise<BoundaryEvalReport> {
  const started = Date.now();
  const name = options.teacher ?? 'ground-truth';
  const policy = name === 'ground-truth' ? groundTruthTeacher : BAD_TEACHERS[name];
  const cases = await inEvalWorld(async (world) => {
    const results: BoundaryCaseResult[] = [];
    for (const phase of options.phases ?? LIFECYCLE_PHASES) {
      for (let n = 0; n < (options.episodes ?? BOUNDARY_EPISODES); n++) {
        const result = await runBoundaryEpisode(world, n, phase, policy);
        results.push(result);
        options.onCase?.(result);
      }
    }
    return results;
  });
  const metrics = boundaryMetrics(cases);
  const who = name === 'ground-truth' ? "ground-truth teacher double (judges from the episode's plan)" : `bad teacher double "${name}" (deliberately wrong)`;
  const notes = [
    'The agent run entry (runAgent) on the real filesystem server; student and teacher are scripted doubles at the model boundary.',
    'Each episode: 16 plan steps, 2 of them replaced by a known mistake (unsafe write, wrong tool, bad arguments, premature finish, injected instruction, in turn).',
  ];
  return { suite: 'boundary', ...reportHead(started, who, notes, BOUNDARY_GATES, metrics, options.thresholds), cases, metrics };
}
