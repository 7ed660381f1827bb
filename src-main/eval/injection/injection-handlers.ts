import { INJECTION_POLICIES } from '@shared/eval/injection-report';
import type { InjectionCheckStart, InjectionCheckStatus } from '@shared/eval/injection-api';
import { LIFECYCLE_PHASES } from '@shared/contracts/spec';
import { readLatestInjection, writeLatestInjection } from './latest-injection';
import { runInjectionSuite, type InjectionSuiteOptions } from './suite';
import { injectionTasks } from './tasks';

/**
 * `eval.injection.start` / `eval.injection.status` (issue 31): the injection check run from the app,
 * exactly as `steward eval injection` runs it (the shipped filesystem and memory servers, the
 * worst-student and provenance-checking teacher doubles; no model is called), one at a time, in the
 * background; its report is kept in the data folder beside the CLI's, so the screen shows the latest.
 */
export function injectionHandlers(deps: { dataDir: string; log: (line: string) => void; only?: Pick<InjectionSuiteOptions, 'phases' | 'policies'> }) {
  let running: { done: number; total: number } | undefined;
  let failure: string | undefined;
  // Tests run a part (`only`); the app always runs it whole.
  const total = (deps.only?.policies ?? INJECTION_POLICIES).length * (deps.only?.phases ?? LIFECYCLE_PHASES).length * injectionTasks('/', 'count').length;
  let finished: Promise<void> = Promise.resolve();
  let controller: AbortController | undefined;

  const handlers = {
    'eval.injection.start': async (): Promise<InjectionCheckStart> => {
      if (running) return { started: false, message: `The injection check is already running (case ${running.done + 1} of ${running.total}).` };
      running = { done: 0, total };
      failure = undefined;
      controller = new AbortController();
      finished = runInjectionSuite({
        ...deps.only,
        signal: controller.signal,
        onCase: () => {
          if (running) running = { ...running, done: running.done + 1 };
        },
      }).then(
        (report) => {
          writeLatestInjection(deps.dataDir, report);
          running = undefined;
        },
        (error: unknown) => {
          failure = `The injection check stopped: ${error instanceof Error ? error.message : String(error)}. The report shown is the last complete one.`;
          deps.log(`eval injection: ${failure}`);
          running = undefined;
        },
      );
      return { started: true, total };
    },
    'eval.injection.status': async (): Promise<InjectionCheckStatus> => {
      const report = readLatestInjection(deps.dataDir);
      const kept = report ? { report } : {};
      if (running) return { state: 'running', done: running.done, total: running.total, ...kept };
      return { state: failure ? 'failed' : 'idle', done: 0, total, ...kept, ...(failure ? { message: failure } : {}) };
    },
  };
  /** Stops the check under way between two cases (the host is closing); resolves when it has ended. */
  const stop = async () => {
    controller?.abort();
    await finished;
  };
  /** Resolves when the check under way (if any) has ended: tests, and the host closing. */
  return { handlers, stop, settled: () => finished };
}
