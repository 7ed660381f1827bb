import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, type RunEventOf } from '@shared/contracts/events';
import type { SupervisorSettingsInput } from '@shared/supervisor/contracts';
import type { WorkflowGraph } from '@shared/workflow/document';
import { graphOf } from '@shared/workflow/testing/graphs';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions, type FakeOpenAIUsage } from '../../../test-support/fake-openai';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { createMemoryLedger } from '../../mcp/idempotency-ledger';
import type { FetchFn } from '../../providers/http-call';
import { runWorkflow } from '../run-workflow';
import { resolveSupervision } from './resolve-supervision';

/**
 * Issue 27: the supervisor's cost cap holds against a priced cloud model billed by tokens. The
 * model is the fake OpenAI server (TEST DOUBLE at the model boundary) behind a cloud address
 * (api.example.com, so it is priced and not local); the real provider, supervisor, kernel and
 * scheduler. The padding model pads its verdict up to whatever output bound it is given — 50,000
 * tokens ($0.50 at this price) when it is given none, the report that filed the issue.
 */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const CLOUD = 'https://api.example.com';
const LABEL = 'api.example.com:big-model';
const PRICE = { input_per_mtok_usd: 2.5, output_per_mtok_usd: 10 };
const CAP = 0.05;
const SKIP = JSON.stringify({ step: 'verdict', verdict: { action: 'skip', reason: 'a poisoned item' } });
/** Not sticky: every failure is a decision of its own. */
const RETRY = JSON.stringify({ step: 'verdict', verdict: { action: 'retry', reason: 'try once more' } });

/** items → iterate → assert "ok" → collect → output: every item without "ok" fails and is escalated. */
function mustSayOk(supervisor: SupervisorSettingsInput): WorkflowGraph {
  return graphOf(
    [
      { id: 'in', kind: 'input', fields: [{ name: 'items', type: 'list' }] },
      { id: 'each', kind: 'iterate' },
      { id: 'work', kind: 'assert', checks: [{ check: 'contains', text: 'ok' }] },
      { id: 'all', kind: 'collect' },
      { id: 'out', kind: 'output', fields: [{ name: 'list', type: 'list' }] },
    ],
    ['in.items->each.list', 'each.item->work.value', 'work.value->all.item', 'all.list->out.list'],
    { supervisor },
  );
}

const dollars = (u: FakeOpenAIUsage): number => ((u.prompt_tokens ?? 0) * PRICE.input_per_mtok_usd + (u.completion_tokens ?? 0) * PRICE.output_per_mtok_usd) / 1_000_000;

async function capped(options: FakeOpenAIOptions, items: string[]) {
  const fake: FakeOpenAI = await startFakeOpenAI(options);
  cleanups.push(() => fake.close());
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  // The cloud address, answered by the fake on loopback: the privacy policy and the pricing see a cloud model.
  const fetch: FetchFn = (input, init) => globalThis.fetch(String(input instanceof Request ? input.url : input).replace(CLOUD, fake.url), init);
  const graph = mustSayOk({
    enabled: true,
    who: { kind: 'model', model: { provider: 'openai_compatible', base_url: `${CLOUD}/v1`, model: 'big-model' } },
    max_decisions: 50,
    cost_cap_usd: CAP,
    pricing: { [LABEL]: PRICE },
  });
  const supervision = await resolveSupervision({ graph }, { fetch, privacy: { allowed_hosts: ['api.example.com'] } });
  if (!supervision || 'unavailable' in supervision.supervisor) throw new Error(`expected a model supervisor: ${JSON.stringify(supervision)}`);
  expect(supervision.supervisor.identity).toEqual({ kind: 'model', label: LABEL, local: false });
  const events: RunEvent[] = [];
  await runWorkflow({ graph, specDir: ws.dir, workspace: ws.workspace, inputs: { items }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), supervision });
  for (const e of events) expect(RunEvent.safeParse(e).success).toBe(true);
  const verdicts = events.filter((e): e is RunEventOf<'supervisor.verdict'> => e.type === 'supervisor.verdict').map((e) => e.verdict);
  return {
    fake,
    verdicts,
    reported: verdicts.reduce((sum, v) => sum + v.cost_usd, 0),
    spent: fake.billed.reduce((sum, u) => sum + dollars(u), 0),
  };
}

const ITEMS = ['ok 1', 'bad 1', 'bad 2', 'bad 3', 'bad 4', 'ok 2'];

describe("the supervisor's cost cap against a priced cloud model billed by tokens (fake OpenAI server)", () => {
  it('a model that pads its answer is asked for at most max_output_tokens: its turns fail closed, and the run never spends or reports more than the cap', async () => {
    const { fake, verdicts, reported, spent } = await capped({ padding: { unbounded_tokens: 50_000 }, chat: () => ({ message: { content: SKIP } }) }, ITEMS);

    // What the provider billed and what Steward reported: under the cap, and the same.
    expect(spent).toBeLessThanOrEqual(CAP);
    expect(reported).toBeLessThanOrEqual(CAP);
    expect(reported).toBeCloseTo(spent, 10);
    // Every supervisor request carried the bound, in this server's dialect (a cloud server that is not OpenAI's: max_tokens).
    const requests = fake.chatRequests();
    expect(requests.length).toBeGreaterThan(0);
    for (const r of requests) expect(r.max_tokens).toBe(2048);
    // A reply cut by the bound is no verdict: the default (fail) applies, in words.
    const asked = verdicts.filter((v) => v.decided_by === 'default');
    expect(asked).toHaveLength(requests.length);
    for (const v of asked) expect(v.verdict).toMatchObject({ action: 'fail', reason: expect.stringContaining('2048 output tokens') });
    // Then the cap refuses the next turn before any call.
    expect(verdicts.some((v) => v.decided_by === 'bounds' && v.verdict.reason.includes('cap'))).toBe(true);
  });

  it('a model that answers within its bound: each turn costs what the provider reported, and the cap stops the turns before it is crossed', async () => {
    // 1,800 output tokens a turn: ~$0.02 each with the prompt.
    const { fake, verdicts, reported, spent } = await capped({ chat: () => ({ message: { content: RETRY }, usage: { prompt_tokens: 900, completion_tokens: 1800 } }) }, ITEMS);

    expect(fake.chatRequests().every((r) => r.max_tokens === 2048)).toBe(true);
    expect(verdicts.filter((v) => v.decided_by === 'agent').map((v) => v.verdict.action)).toEqual(['retry', 'retry']);
    for (const v of verdicts.filter((x) => x.decided_by === 'agent')) expect(v.cost_usd).toBeCloseTo(dollars({ prompt_tokens: 900, completion_tokens: 1800 }), 10);
    expect(spent).toBeLessThanOrEqual(CAP);
    expect(reported).toBeCloseTo(spent, 10);
    expect(verdicts.some((v) => v.decided_by === 'bounds')).toBe(true);
  });
});
