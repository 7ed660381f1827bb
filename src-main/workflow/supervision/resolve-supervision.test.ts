import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, type RunEventOf } from '@shared/contracts/events';
import { FILESYSTEM_PACKAGE } from '@shared/policy/shipped-effects';
import type { SupervisorSettingsInput } from '@shared/supervisor/contracts';
import type { WorkflowGraph } from '@shared/workflow/document';
import { graphOf } from '@shared/workflow/testing/graphs';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { createMemoryLedger } from '../../mcp/idempotency-ledger';
import type { ModelProvider } from '../../providers/provider';
import { runWorkflow } from '../run-workflow';
import { WorkflowCheckpoint } from '../workflow-checkpoint';
import { waitingStoresIn } from '../../../test-support/waiting-stores';
import { RunManager } from '../../engine/run-manager';
import { resolveSupervision, supervisionAsked, supervisionSettings } from './resolve-supervision';

/**
 * Resolving a workflow's supervision (document settings, overrides, a resumed run's checkpoint)
 * and running with it: the real scheduler and MCP filesystem server; the supervisor model is the
 * replay script (the scripted provider supervisor double at the model boundary).
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const skip = (reason: string) => ({ json: { step: 'verdict', verdict: { action: 'skip', reason } } });

/** items → iterate → assert "ok" → collect → output: a poisoned item fails the assert. */
function mustSayOk(supervisor?: SupervisorSettingsInput): WorkflowGraph {
  return graphOf(
    [
      { id: 'in', kind: 'input', fields: [{ name: 'items', type: 'list' }] },
      { id: 'each', kind: 'iterate' },
      { id: 'work', kind: 'assert', checks: [{ check: 'contains', text: 'ok' }] },
      { id: 'all', kind: 'collect' },
      { id: 'out', kind: 'output', fields: [{ name: 'list', type: 'list' }] },
    ],
    ['in.items->each.list', 'each.item->work.value', 'work.value->all.item', 'all.list->out.list'],
    supervisor ? { supervisor } : {},
  );
}

const replaySupervisor = (entries: unknown[], extra: Partial<SupervisorSettingsInput> = {}): SupervisorSettingsInput => ({
  enabled: true,
  who: { kind: 'model', model: { provider: 'script' }, script: { teacher: entries as never } },
  ...extra,
});

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) => events.filter((e): e is RunEventOf<T> => e.type === type);

async function run(graph: WorkflowGraph, items: unknown[], supervision: Awaited<ReturnType<typeof resolveSupervision>>) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const events: RunEvent[] = [];
  const result = await runWorkflow({ graph, specDir: ws.dir, workspace: ws.workspace, inputs: { items }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), ...(supervision ? { supervision } : {}) });
  for (const e of events) expect(RunEvent.safeParse(e).success).toBe(true);
  return { result, events };
}

describe('resolving a workflow run’s supervision', () => {
  it('a document without supervisor settings and no overrides asks for nothing: no option is built', async () => {
    const graph = mustSayOk();
    expect(supervisionAsked({ graph })).toBe(false);
    expect(await resolveSupervision({ graph }, {})).toBeUndefined();
    expect(await resolveSupervision({ graph: mustSayOk({ enabled: false }) }, {})).toBeUndefined();
  });

  it('overrides go over the document: --supervise turns it on, bounds and cap replace the saved ones, a replay model keeps the document’s script', () => {
    const saved = mustSayOk(replaySupervisor([skip('x')], { enabled: false, max_decisions: 9 })).supervisor;
    const merged = supervisionSettings(saved, { supervise: true, max_decisions: 3, max_retries: 0, cost_cap_usd: 0.5, model: { provider: 'script' } });
    expect(merged).toMatchObject({ enabled: true, max_decisions: 3, max_retries: 0, cost_cap_usd: 0.5, who: { kind: 'model', model: { provider: 'script' }, script: { teacher: [{ json: expect.anything() }] } } });
    expect(() => supervisionSettings(saved, { max_decisions: 0 })).toThrow();
  });

  it('a workflow supervised by its document’s replay model: the model’s skip completes the run', async () => {
    const graph = mustSayOk(replaySupervisor([skip('a poisoned item')]));
    const supervision = await resolveSupervision({ graph }, {});
    const { result, events } = await run(graph, ['ok 1', 'poison', 'ok 2'], supervision);
    expect(result.status).toBe('completed');
    expect(ofType(events, 'supervisor.verdict').map((v) => [v.verdict.decided_by, v.verdict.verdict.action])).toEqual([['agent', 'skip']]);
    // The supervisor's call is in the run's privacy log: who, what kinds of data, where it went.
    expect(ofType(events, 'model.called')).toEqual([expect.objectContaining({ caller: 'supervisor', purpose: 'review', data: ['instructions', 'escalation'], model: 'replay', local: true, attempt: 1 })]);
  });

  it('a cloud supervisor model the privacy policy does not allow is refused: the run goes on unsupervised and says why', async () => {
    const graph = mustSayOk({ enabled: true, who: { kind: 'model', model: { provider: 'openai_compatible', base_url: 'https://api.example.com/v1', model: 'gpt-x' } } });
    const supervision = await resolveSupervision({ graph }, { privacy: { allowed_hosts: [] } });
    expect(supervision?.supervisor).toEqual({ unavailable: expect.stringContaining('the supervisor model api.example.com:gpt-x would send failure details to api.example.com') });
    const { result, events } = await run(graph, ['ok', 'poison'], supervision);
    expect(result.status).toBe('completed_with_failures');
    expect(result.invocations.find((i) => i.id === 'work[each=1]')).toMatchObject({ status: 'failed' });
    expect(ofType(events, 'run.notice').map((e) => e.message)).toEqual([expect.stringMatching(/^this run is not supervised: the supervisor model api\.example\.com:gpt-x would send/)]);
    expect(events.some((e) => e.type.startsWith('supervisor.'))).toBe(false);
  });

  it('a cost cap with an unpriced cloud model is refused before any call: the cost could not be bounded', async () => {
    let called = 0;
    const provider: ModelProvider = { label: 'x', complete: () => (called++, Promise.reject(new Error('never'))) };
    const graph = mustSayOk({ enabled: true, cost_cap_usd: 0.1, who: { kind: 'model', model: { provider: 'openai_compatible', base_url: 'https://api.example.com/v1', model: 'gpt-x' } } });
    const supervision = await resolveSupervision({ graph }, { privacy: { allowed_hosts: ['api.example.com'] }, provider });
    expect(supervision?.supervisor).toEqual({ unavailable: 'the supervisor model api.example.com:gpt-x has no price, so the cost cap of $0.1 cannot be kept; add its price or remove the cap' });
    // Priced, the same model is used.
    const priced = mustSayOk({ ...graph.supervisor, pricing: { 'api.example.com:gpt-x': { input_per_mtok_usd: 1, output_per_mtok_usd: 2 } } });
    const usable = await resolveSupervision({ graph: priced }, { privacy: { allowed_hosts: ['api.example.com'] }, provider });
    expect(usable?.supervisor).toMatchObject({ identity: { kind: 'model', label: 'api.example.com:gpt-x', local: false } });
    expect(called).toBe(0);
  });

  it('a person supervisor resolves to the person’s queue: a failed item waits for their verdict', async () => {
    const graph = mustSayOk({ enabled: true, who: { kind: 'person' } });
    const supervision = await resolveSupervision({ graph }, {});
    expect(supervision?.supervisor).toMatchObject({ identity: { kind: 'person' } });
    const { result, events } = await run(graph, ['ok', 'poison'], supervision);
    expect(result.status).toBe('waiting');
    expect(ofType(events, 'supervisor.escalated').map((e) => e.escalation.node)).toEqual(['work']);
  });

  it('a resumed run supervises as it started: the settings (command-line overrides included) and the replay position come from its checkpoint', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    // The document has supervision off; the run turned it on (as --supervise does).
    const graph = graphOf(
      [
        { id: 'in', kind: 'input', fields: [{ name: 'items', type: 'list' }, { name: 'text', type: 'text' }] },
        { id: 'each', kind: 'iterate' },
        { id: 'work', kind: 'assert', checks: [{ check: 'contains', text: 'ok' }] },
        { id: 'all', kind: 'collect' },
        { id: 'save', kind: 'tool', server: 'fs', tool: 'write_file', inputs: [{ name: 'text', type: 'text' }], arguments: { path: join(ws.workspace, 'saved.md'), content: '{{text}}' } },
        { id: 'check', kind: 'assert', checks: [{ check: 'contains', text: 'never there' }] },
        { id: 'out', kind: 'output', fields: [{ name: 'list', type: 'list' }, { name: 'said', type: 'text', required: false }] },
      ],
      ['in.items->each.list', 'each.item->work.value', 'work.value->all.item', 'all.list->out.list', 'in.text->save.text', 'save.text->check.value', 'check.value->out.said'],
      { servers: [{ id: 'fs', package: FILESYSTEM_PACKAGE, args: ['${workspace}'] }], supervisor: replaySupervisor([skip('first entry'), skip('second entry')], { enabled: false }) },
    );
    const first = await resolveSupervision({ graph, overrides: { supervise: true, max_decisions: 4 } }, {});
    const common = { graph, specDir: ws.dir, workspace: ws.workspace, ledger: createMemoryLedger(), confirm: async () => 'pending' as const, onEvent: () => undefined };
    const parked = await runWorkflow({ ...common, inputs: { items: ['ok', 'poison'], text: 'hello' }, ...(first ? { supervision: first } : {}) });
    expect(parked.status).toBe('waiting');
    const checkpoint = WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(parked.checkpoint)));
    expect(checkpoint.supervisor_settings).toMatchObject({ enabled: true, max_decisions: 4 });
    expect(checkpoint.supervisor_script_at).toBe(1);

    expect(supervisionAsked({ graph, checkpoint })).toBe(true);
    const again = await resolveSupervision({ graph, checkpoint }, {});
    const events: RunEvent[] = [];
    const resumed = await runWorkflow({ ...common, inputs: {}, onEvent: (e) => events.push(e), resume: { checkpoint, answer: { action: 'approve' } }, ...(again ? { supervision: again } : {}) });
    // The check after the save fails; the resumed supervisor answers with its script's second entry.
    const verdicts = ofType(events, 'supervisor.verdict');
    expect(verdicts.map((v) => [v.node, v.verdict.decided_by, v.verdict.verdict.reason])).toEqual([['check', 'agent', 'second entry']]);
    expect(resumed.status).toBe('completed');
  }, 60_000);

  it('the app’s RunManager supervises a workflow by its document’s settings (and starts one without them unsupervised)', async () => {
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const events: RunEvent[] = [];
    const manager = new RunManager({
      ledger: createMemoryLedger(),
      onEvent: (e) => events.push(e),
      baseDir: ws.dir,
      ...waitingStoresIn(ws.dir, cleanups),
    });
    const supervisedRun = manager.startWorkflow({ graph: mustSayOk(replaySupervisor([skip('a poisoned item')])), specDir: ws.dir }, { items: ['ok', 'poison'] }, { allowed_hosts: [] });
    const plainRun = manager.startWorkflow({ graph: mustSayOk(), specDir: ws.dir }, { items: ['ok', 'poison'] }, { allowed_hosts: [] });
    const finished = (id: string) => events.find((e): e is RunEventOf<'run.finished'> => e.type === 'run.finished' && e.run_id === id);
    await expect.poll(() => Boolean(finished(supervisedRun.run_id) && finished(plainRun.run_id)), { timeout: 20_000 }).toBe(true);
    const verdicts = (id: string) => ofType(events, 'supervisor.verdict').filter((e) => e.run_id === id);
    expect(verdicts(supervisedRun.run_id).map((v) => [v.node, v.verdict.decided_by, v.next])).toEqual([['work', 'agent', 'skip']]);
    expect(verdicts(plainRun.run_id)).toEqual([]);
  });
});
