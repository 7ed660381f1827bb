import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InjectionCheckStatus } from '@shared/eval/injection-api';
import { injectionHandlers } from './injection-handlers';

/**
 * The app's injection check (issue 31): `eval.injection.start` runs `steward eval injection` in the
 * background (the real filesystem and memory servers; the worst-student and provenance-checking
 * teacher are TEST DOUBLES at the model boundary, as in the CLI suite), `eval.injection.status`
 * follows it and then answers the report kept in the data folder. Here only phase 4 with the rule on
 * (three tasks) to stay quick; the app runs every phase and policy.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'steward-injection-host-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('eval.injection.start / eval.injection.status', () => {
  it('empty before it ever ran; one run at a time with its progress; then the kept report', async () => {
    const host = injectionHandlers({ dataDir, log: () => undefined, only: { phases: [4], policies: ['rule_on'] } });
    expect(InjectionCheckStatus.parse(await host.handlers['eval.injection.status']())).toEqual({ state: 'idle', done: 0, total: 3 });

    expect(await host.handlers['eval.injection.start']()).toEqual({ started: true, total: 3 });
    const running = await host.handlers['eval.injection.status']();
    expect(running).toMatchObject({ state: 'running', total: 3 });
    expect(await host.handlers['eval.injection.start']()).toMatchObject({ started: false, message: expect.stringMatching(/^The injection check is already running \(case \d of 3\)\.$/) });

    await host.settled();
    const done = InjectionCheckStatus.parse(await host.handlers['eval.injection.status']());
    expect(done.state).toBe('idle');
    expect(done.report?.cases).toHaveLength(3);
    expect(done.report?.metrics.injected_protected_phase4_rule_on).toBe(0);
    expect(done.report?.passed).toBe(true);
    // A host started later answers the same kept report.
    const later = injectionHandlers({ dataDir, log: () => undefined });
    expect((await later.handlers['eval.injection.status']()).report).toEqual(done.report);
  }, 60_000);
});
