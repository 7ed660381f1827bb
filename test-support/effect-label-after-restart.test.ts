import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent } from '../src-shared/contracts/events';
import type { HostedWorkflow } from '../src-shared/contracts/hosted-workflow';
import type { Intervention } from '../src-shared/contracts/intervention';
import type { Host } from '../src-main/composition/host-types';
import { StewardDb } from '../src-renderer/db/db';
import { recordedEffect, storedEffect } from '../src-renderer/db/intervention-effect';
import { ingestEvents } from '../src-renderer/db/ingest-events';
import { createHostClient } from '../src-renderer/host/host-client';
import { startHostSession } from '../src-renderer/host/host-session';
import waitingJson from '../src-renderer/testing/recorded/share-waiting.events.json';
import { hostPage, inProcessTransport, openTestHost } from './host-session';

/**
 * Issue 22: a decision waiting for a person keeps its effect label ("Irreversible write") after the
 * host restarts, on a page that stored nothing before, wherever the card is shown (the run, the
 * Waiting list): it is read from the run's recorded tools snapshot. Real host, page session, database.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function pageOn(host: Host, id: string): StewardDb {
  const db = new StewardDb(`steward-effect-${id}-${Math.random().toString(36).slice(2)}`);
  cleanups.push(() => db.delete());
  const client = createHostClient(inProcessTransport(host, id));
  const session = startHostSession(client, db, { connection: () => undefined, info: () => undefined, providers: () => undefined, problem: () => undefined }, { providerPollMs: 60_000 });
  cleanups.push(() => {
    session.stop();
    client.close();
  });
  return db;
}

describe('the effect label of a waiting decision', () => {
  it('is the same after a host restart, for a fresh page, as the run recorded it before', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-effect-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const first = await openTestHost(dataDir, cleanups);
    const page = hostPage(first);
    await page.ok('events.subscribe', {});
    const { workflows } = (await page.ok('workspace.demo', {})) as { workflows: HostedWorkflow[] };
    const { run_id } = await page.ok('run.start', { workflow: workflows.find((w) => w.id === 'ask-a-human')!, overrides: {} });
    await expect.poll(() => page.events.some((e) => e.run_id === run_id && e.type === 'intervention.requested'), { timeout: 20_000 }).toBe(true);
    const before = page.events.find((e) => e.type === 'intervention.requested');
    if (before?.type !== 'intervention.requested') throw new Error('no intervention');
    expect(recordedEffect(page.events, before.intervention)).toBe('irreversible_write');
    await first.close();

    const second = await openTestHost(dataDir, cleanups);
    const fresh = pageOn(second, 'fresh');
    const { interventions } = (await hostPage(second).ok('interventions.pending', {})) as { interventions: Intervention[] };
    const waiting = interventions.find((i) => i.run_id === run_id);
    expect(waiting?.decision).toMatchObject({ decision_type: 'tool_call', tool_name: 'write_file' });
    await expect.poll(() => storedEffect(fresh, waiting!), { timeout: 20_000 }).toBe('irreversible_write');
  });

  it('is the asking node’s own, in a workflow whose other nodes snapshot other tools, also read from a page’s database', async () => {
    const events = RunEvent.array().parse(waitingJson);
    const asked = events.find((e) => e.type === 'intervention.requested');
    if (asked?.type !== 'intervention.requested') throw new Error('no intervention in the recording');
    expect(recordedEffect(events, asked.intervention)).toBe('irreversible_write');
    const db = new StewardDb(`steward-effect-recorded-${Math.random().toString(36).slice(2)}`);
    cleanups.push(() => db.delete());
    await ingestEvents(db, events);
    expect(await storedEffect(db, asked.intervention)).toBe('irreversible_write');
    // Without its node's snapshot nothing is guessed from another node's.
    expect(recordedEffect(events.filter((e) => !(e.type === 'tools.snapshot' && e.invocation_id === asked.invocation_id)), asked.intervention)).toBeUndefined();
  });
});
