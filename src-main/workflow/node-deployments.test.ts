import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEventOf } from '@shared/contracts/events';
import { DeploymentSettings } from '@shared/contracts/profiles';
import { hostPage, openTestHost } from '../../test-support/host-session';
import { twoAgentGraph } from '../../test-support/two-agent-workflow';

/** Issue 29: a workflow graph's agent node runs in the phase of its own deployment profile, and its start records the version. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const writerProfile = (version: number, phase: 0 | 1 | 2 | 3 | 4) => ({
  origin: 'user' as const,
  profile: { kind: 'deployment' as const, id: 'deployment-two-agents-writer', name: `Writer · phase ${phase}`, version, created_at: new Date().toISOString(), description: '', deployment: DeploymentSettings.parse({ phase }), workflow_id: 'two-agents', node_id: 'writer' },
});

describe('an agent node’s own deployment profile (workflows.run)', () => {
  it('moves that node, and only it, to the profile’s phase; its agent.started records the version; a save without nodes keeps them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-node-deploy-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const host = await openTestHost(dataDir, cleanups);
    const page = hostPage(host);
    await page.ok('events.subscribe', {});
    await page.ok('workflows.save', { workflow: twoAgentGraph('two-agents', 2) });
    const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 0, 0, s)).toISOString();
    await page.ok('profiles.save', { profiles: [writerProfile(1, 3)], workflow_choices: [{ workflow_id: 'two-agents', profiles: {}, supervision_enabled: true, updated_at: at(1), nodes: { writer: { deployment: { id: 'deployment-two-agents-writer', version: 1 } } } }] });
    // A page's save of the workflow's other choices (no `nodes`) keeps the node's.
    await page.ok('profiles.save', { profiles: [], workflow_choices: [{ workflow_id: 'two-agents', profiles: {}, supervision_enabled: true, updated_at: at(2) }] });
    expect((await page.ok('profiles.list', {})).workflow_choices.find((c) => c.workflow_id === 'two-agents')?.nodes).toEqual({ writer: { deployment: { id: 'deployment-two-agents-writer', version: 1 } } });

    const { run_id } = await page.ok('workflows.run', { id: 'two-agents', inputs: { topic: 'notes' } });
    await expect.poll(() => page.events.some((e) => e.type === 'run.finished' && e.run_id === run_id), { timeout: 30_000 }).toBe(true);
    expect(page.events.find((e) => e.type === 'run.finished' && e.run_id === run_id)).toMatchObject({ status: 'completed' });
    const starts = page.events.filter((e): e is RunEventOf<'agent.started'> => e.type === 'agent.started' && e.run_id === run_id);
    const writer = starts.find((e) => e.invocation_id === 'writer');
    const reader = starts.find((e) => e.invocation_id === 'reader');
    expect(writer?.supervision.phase).toBe(3);
    expect(writer?.profiles).toEqual({ deployment: { id: 'deployment-two-agents-writer', name: 'Writer · phase 3', version: 1 } });
    expect(reader?.supervision.phase).toBe(2);
    expect(reader?.profiles).toEqual({});
    // Its runtime limits are recorded too (issue 29, the Runtime group).
    expect(writer?.limits).toMatchObject({ max_rounds: 12 });
  }, 60_000);
});
