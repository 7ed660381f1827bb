import { describe, expect, it } from 'vitest';
import type { ModelReply } from '@shared/contracts/model';
import { estimatePromptTokens, reserveTurn } from '@shared/supervisor/cost';
import { CLOUD, PRICING, settings } from '@shared/supervisor/testing/fixtures';
import type { SupervisorSettingsInput } from '@shared/supervisor/contracts';
import { SecretRegistry } from '../../credentials/secret-registry';
import { ProviderError, type ModelProvider, type ModelRequest } from '../../providers/provider';
import { createModelSupervisor } from './model-supervisor';
import { RunSupervision, type FailedInvocation } from './supervise-failure';

/**
 * Issue 27: what a model supervisor's decision costs when it does not end in a verdict — a call cut
 * at its output bound, a loop stopped by the cap, a turn stopped by its timeout after a tool step —
 * is what its calls cost (reported tokens, else each call's worst case), in the verdict and the
 * ledger the next reservation reads. The provider double at the model boundary answers per call
 * and reports usage, as a priced cloud server does.
 */

const STEP_USAGE = { input_tokens: 1000, output_tokens: 50 };
const STEP_COST = (1000 * 1 + 50 * 4) / 1_000_000;

/** Call 1 asks for the run's state (and reports STEP_USAGE); later calls give `later`. */
function providerDouble(later: (request: ModelRequest) => Promise<ModelReply>): { provider: ModelProvider; requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    requests,
    provider: {
      label: CLOUD.kind === 'model' ? CLOUD.label : 'cloud',
      complete: (request) => {
        requests.push(request);
        return requests.length === 1 ? Promise.resolve({ text: '{"step":"get_run_state"}', tool_calls: [], model: 'cloud', usage: STEP_USAGE }) : later(request);
      },
    },
  };
}

const failed: FailedInvocation = {
  invocation: { id: 'fetch', node: 'fetch', lineage: [], inputs: {} },
  failure: { code: 'tool_error', message: 'HTTP 500' },
  attempt: 1,
  retry_safe: false,
  spent_usd: 0,
  created_assets: [],
  validator_covers_output: false,
  streaming: false,
  emitted: false,
};

function supervised(provider: ModelProvider, extra: SupervisorSettingsInput = {}) {
  const s = settings({ who: { kind: 'model', model: { provider: 'script' }, decision_timeout_ms: 1000, max_output_tokens: 2048 }, pricing: PRICING, ...extra });
  if (CLOUD.kind !== 'model') throw new Error('a model identity');
  const supervisor = createModelSupervisor({ provider, identity: CLOUD, settings: s });
  supervisor.attach?.({ invocations: () => [], secrets: new SecretRegistry() });
  const run = new RunSupervision({ settings: s, supervisor, secrets: new SecretRegistry(), validate: async () => ({ ok: true }) });
  /** What the kernel reserves for the decision's first call. */
  const kernelReservation = (): number => {
    const r = reserveTurn(s, CLOUD, 0, estimatePromptTokens(JSON.stringify(run.escalationOf(failed)).length));
    return r.ok ? r.usd : Number.NaN;
  };
  return { run, kernelReservation };
}

describe("a model supervisor's decision that ends without a verdict costs what its calls cost", () => {
  it('a call cut at its output bound: the default verdict, in words, and the tokens the server reported', async () => {
    const double = providerDouble(() => Promise.reject(new ProviderError('output_limit', 'cloud was stopped at its bound of 2048 output tokens before it finished answering', undefined, { input_tokens: 1200, output_tokens: 2048 })));
    const { run } = supervised(double.provider);
    const result = await run.superviseFailure(failed, new AbortController().signal);
    expect(double.requests.map((r) => r.max_output_tokens)).toEqual([2048, 2048]);
    expect(result.verdict).toMatchObject({ decided_by: 'default', verdict: { action: 'fail', reason: 'the supervisor failed: cloud was stopped at its bound of 2048 output tokens before it finished answering' } });
    expect(result.verdict.cost_usd).toBeCloseTo(STEP_COST + (1200 * 1 + 2048 * 4) / 1_000_000, 12);
    expect(run.ledger.spent_usd).toBeCloseTo(result.verdict.cost_usd, 12);
  });

  it('a loop the cap stops before its second call: the first call’s reported cost, not a whole reservation', async () => {
    const double = providerDouble(() => Promise.reject(new Error('never called')));
    const probe = supervised(double.provider);
    // Room for the kernel's reservation of the first call, not for the first call's cost and a second reservation.
    const { run } = supervised(double.provider, { cost_cap_usd: probe.kernelReservation() + STEP_COST / 2 });
    const result = await run.superviseFailure(failed, new AbortController().signal);
    expect(double.requests).toHaveLength(1);
    expect(result.verdict).toMatchObject({ decided_by: 'default', verdict: { action: 'fail', reason: expect.stringContaining('would cross the cap') } });
    expect(result.verdict.cost_usd).toBeCloseTo(STEP_COST, 12);
  });

  it('a turn stopped by its timeout after a tool step: both calls are charged (the second at its worst case), not one reservation', async () => {
    const double = providerDouble(
      (request) =>
        new Promise((_resolve, reject) => {
          request.signal?.addEventListener('abort', () => reject(new ProviderError('cancelled', 'the teacher model call was cancelled')), { once: true });
        }),
    );
    const { run, kernelReservation } = supervised(double.provider);
    const result = await run.superviseFailure(failed, new AbortController().signal);
    expect(double.requests).toHaveLength(2);
    expect(result.verdict).toMatchObject({ decided_by: 'default', verdict: { action: 'fail', reason: 'the supervisor did not decide within 1000 ms' } });
    // The second call's prompt holds the first's, so its worst case is at least the kernel's reservation.
    expect(result.verdict.cost_usd).toBeGreaterThanOrEqual(STEP_COST + kernelReservation());
    expect(run.ledger.spent_usd).toBeCloseTo(result.verdict.cost_usd, 12);
  }, 10_000);
});
