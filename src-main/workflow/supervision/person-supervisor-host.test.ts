import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEventOf } from '@shared/contracts/events';
import { hostPage, openTestHost } from '../../../test-support/host-session';
import { NOTES_SANDBOX } from '../../../test-support/workspace';
import { personSupervisedReads } from '../../../test-support/person-supervised-workflow';

/**
 * The host with a workflow a person supervises (issue 11): the escalation waits in "waiting for
 * you", persisted; after a restart (createHost again on the same data folder) it is still listed,
 * a verdict outside the allowed set is refused, and the person's skip resumes the run to its end.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

describe('the host with a workflow run a person supervises', () => {
  it('lists the escalation after a restart, refuses a verdict outside the allowed set, and the skip resumes the run to its end', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'steward-person-sup-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const sandbox = join(dataDir, 'workspaces', 'notes');
    mkdirSync(join(dataDir, 'workspaces'), { recursive: true });
    cpSync(NOTES_SANDBOX, sandbox, { recursive: true });

    const first = await openTestHost(dataDir, cleanups);
    const page = hostPage(first);
    await page.ok('events.subscribe', {});
    await page.ok('workspaces.register', { workspace: { id: 'notes', path: sandbox } });
    await page.ok('workflows.save', { workflow: personSupervisedReads() });
    const { run_id } = await page.ok('workflows.run', { id: 'read-notes', inputs: { items: [join(sandbox, 'ideas.md'), join(sandbox, 'missing.md')] } });
    await expect.poll(async () => (await page.ok('interventions.pending', {})).interventions.length, { timeout: 60_000 }).toBe(1);
    const [asked] = (await page.ok('interventions.pending', {})).interventions;
    expect(asked).toMatchObject({ run_id, kind: 'supervisor_escalation', supervision: { escalation: { node: 'read', allowed_actions: ['retry', 'skip', 'fail'] } } });
    // The run parks (nothing else runs): it has not finished.
    await expect.poll(() => page.events.some((e) => e.type === 'supervisor.escalated' && e.run_id === run_id), { timeout: 10_000 }).toBe(true);
    expect(page.events.some((e) => e.type === 'run.finished' && e.run_id === run_id)).toBe(false);
    await first.close();

    const second = await openTestHost(dataDir, cleanups);
    const again = hostPage(second);
    await again.ok('events.subscribe', {});
    const { interventions } = await again.ok('interventions.pending', {});
    expect(interventions.map((i) => [i.run_id, i.id, i.kind])).toEqual([[run_id, asked?.id, 'supervisor_escalation']]);

    const refused = await again.call('interventions.answer', { run_id, intervention_id: asked?.id, answer: { action: 'verdict', verdict: { action: 'substitute', value: { text: 'made up' }, reason: 'something to go on with' } } });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.message).toMatch(/"substitute" is not allowed/);
    expect((await again.ok('interventions.pending', {})).interventions).toHaveLength(1);

    const { resumed } = await again.ok('interventions.answer', { run_id, intervention_id: asked?.id, answer: { action: 'verdict', verdict: { action: 'skip', reason: 'that note was never written' } } });
    expect(resumed).toBe(true);
    await expect.poll(() => again.events.some((e) => e.type === 'run.finished' && e.run_id === run_id), { timeout: 60_000 }).toBe(true);
    const finished = again.events.find((e): e is RunEventOf<'run.finished'> => e.type === 'run.finished' && e.run_id === run_id);
    expect(finished).toMatchObject({ status: 'completed', outputs: { list: [expect.stringMatching(/!$/)] } });
    const verdict = again.events.find((e): e is RunEventOf<'supervisor.verdict'> => e.type === 'supervisor.verdict' && e.run_id === run_id);
    expect(verdict).toMatchObject({ node: 'read', next: 'skip', verdict: { decided_by: 'agent', verdict: { action: 'skip', reason: 'that note was never written' } } });
    expect((await again.ok('interventions.pending', {})).interventions).toHaveLength(0);
  }, 120_000);
});
