import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { boundaryReport, supervisorReport } from '../../test-support/eval-reports';
import { hostPage, openTestHost } from '../../test-support/host-session';
import { latestReportPath, writeLatestReport } from './latest-report';

/** The latest eval reports, as the host serves them to the app (`eval.latest`, read-only). */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

describe('eval.latest', () => {
  it('the host hands the page the latest report of each suite from its data folder, a newer run replacing the older', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-eval-latest-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const page = hostPage(await openTestHost(dataDir, cleanups));
    expect(await page.ok('eval.latest', {})).toEqual({});

    writeLatestReport(dataDir, supervisorReport({ incorrectSkips: 1 }));
    const newer = supervisorReport();
    writeLatestReport(dataDir, newer);
    writeLatestReport(dataDir, boundaryReport());
    expect(await page.ok('eval.latest', {})).toEqual({ supervisor: newer, boundary: boundaryReport() });
  });

  it('a report file that is damaged or of another shape is left out, not shown as evidence', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-eval-latest-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    mkdirSync(join(dataDir, 'eval'), { recursive: true });
    writeFileSync(latestReportPath(dataDir, 'supervisor'), '{"suite": "supervisor", "version": 1');
    writeFileSync(latestReportPath(dataDir, 'boundary'), JSON.stringify({ ...boundaryReport(), passed: 'yes' }));
    const page = hostPage(await openTestHost(dataDir, cleanups));
    expect(await page.ok('eval.latest', {})).toEqual({});
  });
});
