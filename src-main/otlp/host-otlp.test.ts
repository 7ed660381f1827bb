import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { finishedTriageRun } from '../../test-support/hosted-workflows';
import { hostPage } from '../../test-support/host-session';
import { createHost } from '../composition/create-host';
import { exportEvents } from './export-otlp';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

describe('runs.otlp: the host exports a run from its journal', () => {
  it('gives the OTLP/JSON of the run it recorded, the same a --trace file of its events exports; a run it does not hold is not_found', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-otlp-host-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const host = await createHost({ dataDir, shell: 'browser', log: () => undefined });
    cleanups.push(() => host.close());
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    const { run_id, workflow } = await finishedTriageRun(page, dataDir);

    const exported = await page.ok('runs.otlp', { run_id });
    const fromPage = exportEvents(page.events.filter((e) => e.run_id === run_id));
    expect(exported.spans).toBe(fromPage.spans);
    expect(exported.json).toBe(new TextDecoder().decode(fromPage.body));
    const request = JSON.parse(exported.json) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; parentSpanId?: string }> }> }> };
    const spans = request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    expect(spans.filter((s) => s.parentSpanId === undefined).map((s) => s.name)).toEqual([`invoke_workflow ${workflow.name}`]);

    const missing = await page.call('runs.otlp', { run_id: 'no-such-run' });
    expect(missing).toMatchObject({ ok: false, error: { code: 'not_found', message: 'the host holds no events of run "no-such-run"' } });
  }, 90_000);
});
