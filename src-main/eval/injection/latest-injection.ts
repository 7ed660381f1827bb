import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InjectionEvalReport } from '@shared/eval/injection-report';

/** The latest `steward eval injection` report, kept in the data folder (`eval/latest-injection.json`) for the app's Learning screen. */
export const latestInjectionPath = (dataDir: string): string => join(dataDir, 'eval', 'latest-injection.json');

export function writeLatestInjection(dataDir: string, report: InjectionEvalReport): string {
  const path = latestInjectionPath(dataDir);
  mkdirSync(join(dataDir, 'eval'), { recursive: true });
  // Written whole, then renamed: the app never reads half a report.
  writeFileSync(`${path}.tmp`, `${JSON.stringify(report, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
  return path;
}

/** Missing or damaged: absent (never shown as evidence). */
export function readLatestInjection(dataDir: string): InjectionEvalReport | undefined {
  const path = latestInjectionPath(dataDir);
  if (!existsSync(path)) return undefined;
  try {
    const parsed = InjectionEvalReport.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
