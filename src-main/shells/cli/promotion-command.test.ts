import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventId, RunEvent } from '@shared/contracts/events';
import { DeploymentSettings } from '@shared/contracts/profiles';
import { metricsSeries, promotionMetrics, reviewOutcomesFromEvents } from '@shared/policy/promotion';
import { nodeOfScope } from '@shared/policy/promotion-facts';
import { openTestHost } from '../../../test-support/host-session';
import { runEvents, type Round, type Run } from '../../../test-support/promotion-runs';
import { tempFolder } from '../../../test-support/temp-folder';
import { openHistory } from '../../events/open-history';
import { cliWith, forwardedWith } from '../../../test-support/cli-capture';
import { EXIT } from './cli';

/** Issue 26: promotion figures from a terminal, kept by the history as the app's cards show them. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const cli = (argv: string[], dataDir: string) => cliWith([...argv, '--data-dir', dataDir]);
const forwarded = forwardedWith;

const round = (n: number, node: Round['node'], ruling: Round['ruling'], write = false): Round => ({ round: n, node, kind: 'reviewed', rule: write ? 'protected_effect' : 'sampled', ruling, learning: true, record: true, answer: undefined, agree: false, write, pause: 1 });
/** A graph workflow's two agent nodes over two runs, and an agent workflow's runs. */
const RUNS: Run[] = [
  { workflow: 'wf-graph', graph: true, started: true, dry: false, start: 0, rounds: [round(0, 'reader', 'accept'), round(1, 'reader', 'accept'), round(0, 'writer', 'block', true)] },
  { workflow: 'wf-graph', graph: true, started: true, dry: false, start: 20, rounds: [round(0, 'reader', 'accept'), round(0, 'writer', 'replace', true)] },
  { workflow: 'wf-agent', graph: false, started: true, dry: false, start: 40, rounds: [0, 1, 2, 3, 4].map((n) => round(n, 'reader', n === 2 ? 'block' : 'accept')) },
];

function folderWithRuns(): { dataDir: string; events: RunEvent[] } {
  const dataDir = join(tempFolder('steward-promotion-cli-', cleanups), 'data');
  const journal = openHistory(dataDir, { log: () => undefined });
  // Each run ended, as a finished history holds them.
  const events = RUNS.flatMap((run, i) => {
    const trace = runEvents(run, i);
    const last = trace.at(-1)!;
    const seq = trace.length;
    return [...trace, RunEvent.parse({ type: 'run.finished', id: eventId(last.run_id, seq), run_id: last.run_id, seq, ts: last.ts, status: 'completed', rounds: run.rounds.length, event_count: seq + 1 })];
  });
  journal.append(events);
  journal.close();
  return { dataDir, events };
}

describe('steward learning promotion', () => {
  it('lists every agent node with reviewed rounds in words, and one node’s figures as JSON equal to a scan of its events', async () => {
    const { dataDir, events } = folderWithRuns();
    const all = await cli(['learning', 'promotion'], dataDir);
    expect(all).toMatchObject({ code: EXIT.ok, stderr: '' });
    expect(all.stdout).toBe(
      [
        'wf-agent (its agent runs): 5 reviewed rounds; over the last 5: agreement 80%, blocked 20%, 0 protected-effect errors',
        'wf-graph › reader: 3 reviewed rounds; over the last 3: agreement 100%, blocked 0%, 0 protected-effect errors',
        'wf-graph › writer: 2 reviewed rounds; over the last 2: agreement 0%, blocked 50%, 2 protected-effect errors',
        '',
      ].join('\n'),
    );
    expect((await cli(['learning', 'promotion', 'wf-graph'], dataDir)).stdout.split('\n').filter(Boolean)).toHaveLength(2);

    const one = await cli(['learning', 'promotion', 'wf-agent', '--window', '3', '--json'], dataDir);
    expect(one.code, one.stderr).toBe(EXIT.ok);
    const outcomes = reviewOutcomesFromEvents(events.filter((e) => e.run_id === 'run-000002')).filter((o) => nodeOfScope(o.invocation_id ?? '') === '');
    const settings = { ...DeploymentSettings.parse({}).promotion, window: 3 };
    expect(JSON.parse(one.stdout)).toEqual({ window: 3, nodes: [{ workflow_id: 'wf-agent', node: '', outcomes: 5, metrics: promotionMetrics(outcomes, settings), series: metricsSeries(outcomes, settings, 60) }] });
  });

  it('says so when nothing has reviewed rounds, and refuses bad flags in words', async () => {
    const { dataDir } = folderWithRuns();
    expect((await cli(['learning', 'promotion', 'no-such-workflow'], dataDir)).stdout).toBe('no agent node of no-such-workflow has reviewed rounds yet: run it with supervision on to start measuring its student\n');
    expect((await cli(['learning', 'promotion', 'wf-graph', '--node', 'nobody'], dataDir)).stdout).toMatch(/^wf-graph › nobody has reviewed rounds yet/);
    const noWorkflow = await cli(['learning', 'promotion', '--node', 'reader'], dataDir);
    expect(noWorkflow).toMatchObject({ code: EXIT.badInput, stderr: expect.stringContaining('--node names an agent node of a workflow: give the WORKFLOW_ID too') });
    expect((await cli(['learning', 'promotion', '--window', '0'], dataDir)).stderr).toContain('--window takes a whole number of reviewed rounds, 1 or more (got "0")');
    const empty = await cli(['learning', 'promotion', '--json'], join(tempFolder('steward-promotion-cli-', cleanups), 'absent'));
    expect(empty).toMatchObject({ code: EXIT.ok, stdout: `${JSON.stringify({ window: 50, nodes: [] }, null, 2)}\n` });
  });

  it('while the app runs, the command is handed to it and answers the same', async () => {
    const { dataDir } = folderWithRuns();
    const argvs = [['learning', 'promotion'], ['learning', 'promotion', 'wf-graph', '--node', 'writer', '--json']];
    const alone = await Promise.all(argvs.map((argv) => cli(argv, dataDir)));
    await openTestHost(dataDir, cleanups);
    expect(await Promise.all(argvs.map((argv) => forwarded(argv, dataDir)))).toEqual(alone);
  });
});
