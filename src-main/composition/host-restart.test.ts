import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import type { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import type { Workspace } from '@shared/contracts/host-registry';
import type { Intervention } from '@shared/contracts/intervention';
import { ensureBuilt } from '../../test-support/ensure-built';
import { connectHost, startHostProcess, waitFor, type HostProcess } from '../../test-support/host-process';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

describe('a host killed mid-run (the browser-run host as a real process)', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it('loses no event and closes the run as interrupted after a restart; the write it never reached never happens', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-kill-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));

    const first: HostProcess = await startHostProcess(dataDir);
    cleanups.push(() => first.stop('SIGKILL'));
    const page = await connectHost(first);
    const { workflows } = (await page.request('workspace.demo', {})) as { workflows: HostedWorkflow[] };
    const demo = workflows[0]!;
    await page.request('events.subscribe', {});
    const { run_id } = (await page.request('run.start', { workflow: demo, overrides: {} })) as { run_id: string };
    // Two reads done, the reviewed write not yet reached (the replay script paces rounds at 700 ms).
    await waitFor(() => page.events.some((e) => e.run_id === run_id && e.type === 'round.completed' && e.round === 1), 20_000, 'round 1');
    await first.stop('SIGKILL');
    const seenBefore = page.events.filter((e) => e.run_id === run_id);
    const lastSeq = Math.max(...seenBefore.map((e) => e.seq));

    const second = await startHostProcess(dataDir);
    cleanups.push(() => second.stop());
    const again = await connectHost(second);
    cleanups.push(() => again.close());
    await again.request('events.subscribe', {});
    await waitFor(() => again.events.some((e) => e.type === 'run.finished'), 10_000, 'run.finished');

    const replayed = again.events.filter((e) => e.run_id === run_id);
    // Nothing was acknowledged, so every event comes back, in order, followed by the closing event.
    expect(replayed.map((e) => e.seq)).toEqual(replayed.map((_, i) => i));
    expect(replayed.slice(0, seenBefore.length).map((e) => e.id)).toEqual(seenBefore.map((e) => e.id));
    const finished = replayed.at(-1) as Extract<RunEvent, { type: 'run.finished' }>;
    expect(finished).toMatchObject({ type: 'run.finished', status: 'interrupted', event_count: replayed.length });
    expect(finished.seq).toBeGreaterThanOrEqual(lastSeq + 1);
    expect(finished.rounds).toBeGreaterThanOrEqual(2);

    // The disk: the original notes are intact and the interrupted write never happened.
    const { workspaces } = (await again.request('workspaces.list', {})) as { workspaces: Workspace[] };
    const sandbox = workspaces.find((w) => w.id === demo.workspace)!.path;
    expect(readFileSync(join(sandbox, 'meeting-notes.md'), 'utf8')).toContain('Team sync');
    expect(existsSync(join(sandbox, 'summary.md'))).toBe(false);

    // The journal keeps the history: a third start has nothing left to close, a page resuming from
    // its cursor is sent nothing, and a page with nothing stored gets the same events again.
    const { journal, head } = (await again.request('events.subscribe', {})) as { journal: string; head: number };
    await second.stop();
    const third = await startHostProcess(dataDir);
    cleanups.push(() => third.stop());
    const last = await connectHost(third);
    cleanups.push(() => last.close());
    expect(await last.request('events.subscribe', { journal, after: head })).toEqual({ journal, after: head, head });
    const fresh = await connectHost(third);
    cleanups.push(() => fresh.close());
    await fresh.request('events.subscribe', {});
    await waitFor(() => fresh.events.length === head, 10_000, 'the whole journal');
    expect(fresh.events.filter((e) => e.run_id === run_id)).toEqual(replayed);
    expect(last.events).toEqual([]);
  });

  it('a run waiting for a person survives a kill: it is still waiting after the restart, and the answer resumes it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-wait-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const first = await startHostProcess(dataDir);
    cleanups.push(() => first.stop('SIGKILL'));
    const page = await connectHost(first);
    const { workflows } = (await page.request('workspace.demo', {})) as { workflows: HostedWorkflow[] };
    const demo = workflows.find((w) => w.id === 'ask-a-human')!;
    await page.request('events.subscribe', {});
    const { run_id } = (await page.request('run.start', { workflow: demo, overrides: {} })) as { run_id: string };
    await waitFor(() => page.events.some((e) => e.run_id === run_id && e.type === 'intervention.requested'), 20_000, 'intervention.requested');
    // The checkpoint commits with intervention.requested, and a page is told of an event only once it is durable: it is there already.
    const history = new Database(join(dataDir, 'history.sqlite'), { readonly: true });
    expect(history.prepare('SELECT run_id FROM waiting').all()).toEqual([{ run_id }]);
    history.close();
    await first.stop('SIGKILL');

    const second = await startHostProcess(dataDir);
    cleanups.push(() => second.stop());
    const again = await connectHost(second);
    cleanups.push(() => again.close());
    await again.request('events.subscribe', {});
    const { interventions } = (await again.request('interventions.pending', {})) as { interventions: Intervention[] };
    expect(interventions).toHaveLength(1);
    const waiting = interventions[0]!;
    expect(waiting).toMatchObject({ run_id, kind: 'escalation', options: ['approve', 'reject', 'takeover', 'stop'] });
    expect(waiting.decision).toMatchObject({ tool_name: 'write_file' });
    // Not closed as interrupted: it is waiting, not dead.
    expect(again.events.some((e) => e.run_id === run_id && e.type === 'run.finished')).toBe(false);

    // An id the run does not wait for, or one of another run, is refused in words (issue 27), and the run still waits.
    await expect(again.request('interventions.answer', { run_id, intervention_id: 'no-such-question', answer: { action: 'approve' } })).rejects.toThrow(
      `not_found: run ${run_id} does not wait for no-such-question: it waits for ${waiting.id}`,
    );
    await expect(again.request('interventions.answer', { run_id: 'another-run-0001', intervention_id: waiting.id, answer: { action: 'approve' } })).rejects.toThrow(
      `not_found: the question ${waiting.id} belongs to run ${run_id}, not to run another-run-0001`,
    );
    expect(await again.request('interventions.answer', { run_id, intervention_id: waiting.id, answer: { action: 'approve' } })).toEqual({ resumed: true });
    await waitFor(() => again.events.some((e) => e.run_id === run_id && e.type === 'run.finished'), 20_000, 'run.finished');
    const all = again.events.filter((e) => e.run_id === run_id);
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i));
    expect(all.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed', event_count: all.length });
    const { workspaces } = (await again.request('workspaces.list', {})) as { workspaces: Workspace[] };
    expect(readFileSync(join(workspaces.find((w) => w.id === demo.workspace)!.path, 'shared.md'), 'utf8')).toContain('Action items');
    expect((await again.request('interventions.pending', {})) as { interventions: Intervention[] }).toEqual({ interventions: [] });
    // A second answer to the same intervention does nothing.
    expect(await again.request('interventions.answer', { run_id, intervention_id: waiting.id, answer: { action: 'approve' } })).toEqual({ resumed: false });
  });
});
