import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventId, type RunEvent } from '../src-shared/contracts/events';
import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';
import { openHistory } from '../src-main/events/open-history';
import { EXAMPLES } from './workspace';
import type { Host } from '../src-main/composition/host-types';
import { waitFor } from './host-process';
import { hostPage, openTestHost } from './host-session';
import { finishedTriageRun, hostedEcho } from './hosted-workflows';

/**
 * Issue 26: export → delete → import restores every event of a run equal to the original, and never
 * touches another run — for runs of every kind the app makes (agents, one that waited for a person,
 * SCS, workflows, a pattern, a replay, one interrupted), in any order and any chunking. Before the history moved to SQLite an event's id was read
 * from its raw line, and a nested id that came first made a delete forget the wrong one.
 */

const cleanups: Array<() => Promise<void> | void> = [];
let host: Host;
let dataDir: string;
const originals = new Map<string, RunEvent[]>();

const bySeq = (events: readonly RunEvent[]) => [...events].sort((a, b) => a.seq - b.seq);

/** Every event a fresh page is sent, by run: what the history now holds. */
async function held(id: string): Promise<Map<string, RunEvent[]>> {
  const page = hostPage(host, id);
  const { head } = await page.ok('events.subscribe', {});
  // The backfill runs in frames; wait until it reached the head.
  const expected = [...originals.values()].reduce((n, events) => n + events.length, 0);
  await expect.poll(() => page.events.length >= expected || head === 0, { timeout: 20_000 }).toBe(true);
  const runs = new Map<string, RunEvent[]>();
  for (const event of page.events) runs.set(event.run_id, [...(runs.get(event.run_id) ?? []), event]);
  for (const [runId, events] of runs) runs.set(runId, bySeq(events));
  return runs;
}

describe('delete then import restores a run exactly', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'steward-round-trip-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    host = await openTestHost(dataDir, cleanups);
  });
  afterAll(async () => {
    while (cleanups.length) await cleanups.pop()?.();
  });

  it('runs of every kind the app makes: agents, one that waited for a person, SCS, workflows, a fan-out over a real MCP server, a pattern, a replay', async () => {
    const page = hostPage(host, 'runner');
    await page.ok('events.subscribe', {});
    const { workflows } = await page.ok('workspace.demo', {});
    const started = await Promise.all(workflows.map((workflow) => page.ok('run.start', { workflow, overrides: {} })));
    const ids = started.map((s) => s.run_id);
    await page.ok('workflows.save', { workflow: hostedEcho('echo-round-trip') });
    ids.push((await page.ok('workflows.run', { id: 'echo-round-trip', inputs: { name: 'round trip' } })).run_id);
    ids.push((await finishedTriageRun(page, dataDir)).run_id);
    const debate = HostedWorkflowGraph.parse(JSON.parse(readFileSync(join(EXAMPLES, 'pattern-debate.workflow.json'), 'utf8')));
    await page.ok('workflows.save', { workflow: debate });
    ids.push((await page.ok('workflows.run', { id: debate.id })).run_id);
    // The run that asks a person (ask-a-human) is answered, so it waited and then finished: every
    // question the host holds is approved until every run has ended (a question can come while another is answered).
    const finished = (runId: string) => page.events.some((e) => e.run_id === runId && e.type === 'run.finished');
    const deadline = Date.now() + 120_000;
    while (!ids.every(finished)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for runs to end: ${ids.filter((id) => !finished(id)).join(', ')}`);
      for (const asked of (await page.ok('interventions.pending', {})).interventions) {
        // Refused when it was answered meanwhile: the next pass sees what is still asked.
        await page.call('interventions.answer', { run_id: asked.run_id, intervention_id: asked.id, answer: { action: 'approve' } });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // A replay of the first demo run, dry: a run of its own (replay_of).
    const replay = await page.ok('runs.replay', { run_id: ids[0]!, tools: 'dry_run' });
    ids.push(replay.run_id);
    await waitFor(() => ids.every(finished), 60_000, 'the replay ended');
    for (const runId of ids) originals.set(runId, bySeq(page.events.filter((e) => e.run_id === runId)));

    const kinds = new Set(
      [...originals.values()].map((events) =>
        events.some((e) => e.type === 'run.started' && e.replay_of !== undefined)
          ? 'replay'
          : events.some((e) => e.type.startsWith('pattern.'))
            ? 'pattern'
            : events.some((e) => e.type === 'workflow.started')
              ? 'workflow'
              : events.some((e) => e.type.startsWith('scs.'))
                ? 'scs'
                : events.some((e) => e.type === 'intervention.requested')
                  ? 'waited'
                  : 'agent',
      ),
    );
    expect(kinds).toEqual(new Set(['agent', 'waited', 'scs', 'workflow', 'pattern', 'replay']));
  }, 240_000);

  it('a run interrupted by a host stop (closed as interrupted at the next start) round-trips too', async () => {
    // The history holds a run left open, as a killed host leaves it; a restart closes it as interrupted.
    await host.close();
    const history = openHistory(dataDir, { log: () => undefined });
    const runId = 'run-interrupted-round-trip-0001';
    const events = originals.get([...originals.keys()][0]!)!.filter((e) => e.type !== 'run.finished').slice(0, 6).map((e) => ({ ...e, id: eventId(runId, e.seq), run_id: runId }) as RunEvent);
    history.append(events);
    history.close();
    host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host, 'after-restart');
    await page.ok('events.subscribe', {});
    await waitFor(() => page.events.some((e) => e.run_id === runId && e.type === 'run.finished'), 20_000, 'the interrupted end');
    const interrupted = bySeq(page.events.filter((e) => e.run_id === runId));
    expect(interrupted.at(-1)).toMatchObject({ type: 'run.finished', status: 'interrupted' });
    originals.set(runId, interrupted);
  }, 60_000);

  it('property: any runs deleted then imported again, in any chunks, come back event for event; the others never change', async () => {
    const runIds = [...originals.keys()];
    let trial = 0;
    await fc.assert(
      fc.asyncProperty(fc.subarray(runIds, { minLength: 1 }), fc.integer({ min: 1, max: 60 }), async (chosen, chunk) => {
        trial += 1;
        const page = hostPage(host, `trial-${trial}`);
        expect(await page.ok('runs.delete', { run_ids: chosen })).toEqual({ deleted: chosen.length });
        const events = chosen.flatMap((runId) => originals.get(runId)!);
        let imported = 0;
        for (let i = 0; i < events.length; i += chunk) imported += (await page.ok('runs.import', { import_id: `round-trip-${trial}`, events: events.slice(i, i + chunk) })).imported;
        expect(imported).toBe(events.length);
        const now = await held(`check-${trial}`);
        for (const [runId, original] of originals) expect(now.get(runId), runId).toEqual(original);
        // A repeat import changes nothing.
        const again = await page.ok('runs.import', { import_id: `repeat-${trial}`, events });
        expect(again.imported).toBe(0);
      }),
      { numRuns: 6 },
    );
  }, 120_000);
});
