import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BoundaryEvalReport, SupervisorEvalReport, type EvalReport, type EvalSuite, type LatestEvalReports } from '@shared/eval/report';

/** Each suite's latest report, kept in the data folder (`eval/latest-<suite>.json`) for the app's Learning screen. */

export const latestReportPath = (dataDir: string, suite: EvalSuite): string => join(dataDir, 'eval', `latest-${suite}.json`);

export function writeLatestReport(dataDir: string, report: EvalReport): string {
  const path = latestReportPath(dataDir, report.suite);
  mkdirSync(join(dataDir, 'eval'), { recursive: true });
  // Written whole, then renamed: the app never reads half a report.
  writeFileSync(`${path}.tmp`, `${JSON.stringify(report, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
  return path;
}

/** A report that is missing or does not parse is absent (an older or damaged file is not shown as evidence). */
export function readLatestReports(dataDir: string): LatestEvalReports {
  const read = <T>(suite: EvalSuite, schema: { safeParse: (v: unknown) => { success: true; data: T } | { success: false } }): T | undefined => {
    const path = latestReportPath(dataDir, suite);
    if (!existsSync(path)) return undefined;
    try {
      const parsed = schema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  };
  const supervisor = read('supervisor', SupervisorEvalReport);
  const boundary = read('boundary', BoundaryEvalReport);
  return { ...(supervisor ? { supervisor } : {}), ...(boundary ? { boundary } : {}) };
}
