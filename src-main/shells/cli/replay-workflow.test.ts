import { cpSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliOn } from '../../../test-support/cli-capture';
import { finishedTriageRun } from '../../../test-support/hosted-workflows';
import { hostPage, openTestHost } from '../../../test-support/host-session';
import { tempFolder } from '../../../test-support/temp-folder';
import { EXAMPLES } from '../../../test-support/workspace';
import { readTraceFile } from '../../../test-support/trace-file';
import { EXIT } from './cli';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const cli = (argv: string[], dataDir: string) => cliOn(dataDir, argv);

describe('steward replay of a workflow run', () => {
  it('replays a recorded workflow trace dry with its workflow file: a line per node invocation, then "none"; a changed answer is listed by node, item and round', async () => {
    const dir = tempFolder('steward-cli-wf-replay-', cleanups);
    const file = join(dir, 'folder-triage.workflow.json');
    cpSync(join(EXAMPLES, 'folder-triage.workflow.json'), file);
    cpSync(join(EXAMPLES, 'triage-sandbox'), join(dir, 'triage-sandbox'), { recursive: true });
    const dataDir = join(dir, 'data');
    const trace = join(dir, 'run.jsonl');
    expect((await cli(['run', file, '--trace', trace], dataDir)).code).toBe(EXIT.ok);
    const report = join(dir, 'triage-sandbox', 'triage-report.md');
    rmSync(report);
    const recorded = readTraceFile(trace);

    const same = await cli(['replay', trace, '--spec', file], dataDir);
    expect(same.stderr).toBe('');
    expect(same.code).toBe(EXIT.ok);
    expect(same.stdout).toContain(`steward · replay of ${recorded[0]?.run_id} · dry run`);
    expect(same.stdout).toMatch(/✓ classify · item 2 done/);
    expect(same.stdout).toMatch(/differences from the recorded run: none \(\d+ node invocations, the same decisions and outputs\)/);
    // Dry: the reviewed write gave back its recorded result and wrote nothing.
    expect(existsSync(report)).toBe(false);

    const changed = join(dir, 'changed.jsonl');
    const lines = recorded.map((e) =>
      e.type === 'candidate.proposed' && e.invocation_id === 'classify[each-file=1]' ? { ...e, reply: { ...e.reply, text: JSON.stringify({ decision_type: 'complete', output: 'tasks' }) } } : e,
    );
    writeFileSync(changed, `${lines.map((e) => JSON.stringify(e)).join('\n')}\n`);
    const differs = await cli(['replay', changed, '--spec', file], dataDir);
    expect(differs.code).toBe(EXIT.runNotCompleted);
    expect(differs.stdout).toMatch(/differences from the recorded run: in \d+ of \d+ node invocations/);
    expect(differs.stdout).toContain('  classify · item 2 · round 1: arguments {"output":"notes"} → {"output":"tasks"}');
    expect(differs.stdout).toContain('  classify · item 2: ended {"output":"notes"} → {"output":"tasks"}');

    const json = await cli(['replay', trace, '--spec', file, '--json'], dataDir);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'completed', replay_of: recorded[0]?.run_id, dry_run: true, differences: [], gaps: [] });
  }, 120_000);

  it('replays an app run by its id from the data folder, on the workflow the host keeps there: per-node lines, no differences', async () => {
    const dataDir = tempFolder('steward-cli-wf-replay-host-', cleanups);
    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    const { run_id } = await finishedTriageRun(page, dataDir);
    await host.close();
    const replay = await cli(['replay', run_id], dataDir);
    expect(replay.stderr).toBe('');
    expect(replay.code).toBe(EXIT.ok);
    expect(replay.stdout).toContain(`steward · replay of ${run_id} · dry run`);
    expect(replay.stdout).toContain('✓ Write the report (reviewed) done');
    expect(replay.stdout).toMatch(/differences from the recorded run: none/);
  }, 120_000);
});
