import { describe, expect, it } from 'vitest';
import type { SupervisorSettingsInput } from '@shared/supervisor/contracts';
import { LOCAL, settings, VERDICTS } from '@shared/supervisor/testing/fixtures';
import { HANG, ScriptedSupervisorDouble, type ScriptedAnswer } from '@shared/supervisor/testing/scripted-supervisor';
import type { SubstituteCheck } from '@shared/supervisor/machine';
import { SupervisorLedger } from '@shared/supervisor/ledger';
import { SecretRegistry } from '../../credentials/secret-registry';
import { failureSignature, RunSupervision, setUpSupervision, type FailedInvocation, type SupervisionDeps } from './supervise-failure';

/**
 * The host adapter with a real secret registry and the scripted supervisor double standing in for
 * the model (the one allowed double, at the model boundary).
 */

const API_KEY = 'sk-live-7d1f0c9b2e4a48c3';

function supervision(answers: ScriptedAnswer[], opts: { checks?: SubstituteCheck[]; settings?: SupervisorSettingsInput } = {}) {
  const double = new ScriptedSupervisorDouble(answers, opts.checks);
  const secrets = new SecretRegistry();
  secrets.register('openai', API_KEY);
  const deps: SupervisionDeps = {
    settings: settings({ who: { kind: 'model', model: { provider: 'script' }, decision_timeout_ms: 1000 }, ...opts.settings }),
    supervisor: { identity: LOCAL, decide: (input, signal) => double.decide(input, signal) },
    validate: (input) => double.validate(input),
    secrets,
    now: () => new Date('2026-12-01T10:00:00Z'),
  };
  return { double, run: new RunSupervision(deps) };
}

function failed(index: number, overrides: Partial<FailedInvocation> = {}): FailedInvocation {
  return {
    invocation: { id: `extract[each=${index}]`, node: 'extract', lineage: [{ iterate: 'each', index }], inputs: {} },
    failure: { code: 'assert_failed', message: `item ${index}: expected an object` },
    attempt: 1,
    retry_safe: true,
    spent_usd: 0,
    created_assets: [],
    validator_covers_output: true,
    streaming: false,
    emitted: false,
    ...overrides,
  };
}

const live = () => new AbortController().signal;

describe('supervising a failed invocation on the host', () => {
  it('a retry runs the node again, once: the same invocation is not offered retry a second time', async () => {
    const { double, run } = supervision([{ verdict: VERDICTS.retry }, { verdict: VERDICTS.retry }]);
    const first = await run.superviseFailure(failed(1, { failure: { code: 'tool_error', message: 'HTTP 503' }, http_status: 503 }), live());
    expect(first.next).toEqual({ kind: 'run_again' });
    const second = await run.superviseFailure(failed(1, { attempt: 2, failure: { code: 'tool_error', message: 'HTTP 503' }, http_status: 503 }), live());
    expect(double.calls[1]?.input.allowed).not.toContain('retry');
    expect(second.verdict).toMatchObject({ decided_by: 'kernel', verdict: { action: 'fail' } });
    expect(second.next).toMatchObject({ kind: 'failed', failure: { code: 'tool_error' } });
  });

  it('7 poisoned items failing at once cost one decision: decisions are taken one at a time, so the sticky skip reaches the rest', async () => {
    const { double, run } = supervision(Array(7).fill({ verdict: VERDICTS.skip }));
    const results = await Promise.all([3, 17, 42, 88, 120, 150, 199].map((i) => run.superviseFailure(failed(i), live())));
    expect(double.calls).toHaveLength(1);
    expect(results.map((r) => r.next.kind)).toEqual(Array(7).fill('skip'));
    expect(results.filter((r) => r.verdict.decided_by === 'sticky')).toHaveLength(6);
    expect(run.ledger.decisions).toBe(1);
  });

  it('a generic failure code is no signature: unrelated tool errors are each asked', async () => {
    expect(failureSignature({ failure: { code: 'tool_error', message: 'x' } })).toEqual({});
    expect(failureSignature({ failure: { code: 'tool_error', message: 'x' }, http_status: 429 })).toEqual({ http_status: 429 });
    const { double, run } = supervision([{ verdict: VERDICTS.skip }, { verdict: VERDICTS.skip }]);
    await run.superviseFailure(failed(1, { failure: { code: 'tool_error', message: 'disk full' } }), live());
    await run.superviseFailure(failed(2, { failure: { code: 'tool_error', message: 'bad path' } }), live());
    expect(double.calls).toHaveLength(2);
  });

  it('a registered secret and a credential field never reach the supervisor, in the detail or the candidate output', async () => {
    const { double, run } = supervision([{ verdict: VERDICTS.fail }]);
    await run.superviseFailure(
      failed(1, {
        failure: { code: 'template_error', message: `request with Authorization: Bearer ${API_KEY} failed; max_tokens=512` },
        candidate_output: { output: `partial ${encodeURIComponent(API_KEY)}`, api_key: 'another-credential', author: 'ada' },
      }),
      live(),
    );
    const sent = JSON.stringify(double.calls[0]?.input);
    expect(sent).not.toContain(API_KEY);
    expect(sent).not.toContain(encodeURIComponent(API_KEY));
    expect(sent).not.toContain('another-credential');
    expect(sent).toContain('max_tokens=512');
    expect(sent).toContain('"author":"ada"');
  });

  it('a substitute that validates becomes the node’s output', async () => {
    const value = { output: '{"name":"Ada"}' };
    const { run } = supervision([{ verdict: { action: 'substitute', value, reason: 'closed the JSON' } }], { checks: [{ ok: true }] });
    const result = await run.superviseFailure(failed(1, { candidate_output: { output: '{"name":"Ada"' } }), live());
    expect(result.next).toEqual({ kind: 'done', outputs: value });
  });

  it('a streaming node that gets skip is failed by the kernel, with the node’s own failure kept', async () => {
    const { run } = supervision([{ verdict: VERDICTS.skip }]);
    const result = await run.superviseFailure(failed(1, { streaming: true }), live());
    expect(result.verdict.decided_by).toBe('kernel');
    expect(result.next).toMatchObject({ kind: 'failed', failure: { code: 'assert_failed', message: expect.stringContaining('item 1: expected an object') } });
  });

  it('stopping the run while the supervisor decides aborts its call and fails the node as it would have', async () => {
    const { double, run } = supervision([HANG]);
    const controller = new AbortController();
    const pending = run.superviseFailure(failed(1), controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    const result = await pending;
    expect(double.calls[0]?.aborted).toBe(true);
    expect(result.next).toMatchObject({ kind: 'failed', failure: { code: 'assert_failed' } });
    expect(run.ledger.decisions).toBe(0);
  });

  it('a model that does not answer in time is aborted and the node fails, decided by default', async () => {
    const { double, run } = supervision([HANG]);
    const result = await run.superviseFailure(failed(1), live());
    expect(double.calls[0]?.aborted).toBe(true);
    expect(result.verdict).toMatchObject({ decided_by: 'default', verdict: { action: 'fail' } });
  });

  it('after a restart the ledger read back from disk keeps the bounds and the sticky verdicts, and a person’s stored answer decides the waiting escalation', async () => {
    const before = supervision([{ verdict: VERDICTS.skip }], { settings: { who: { kind: 'person' }, max_decisions: 2 } });
    await before.run.superviseFailure(failed(1), live());
    const persisted = JSON.stringify(before.run.ledger);

    // A new host process: the same settings, the ledger from the checkpoint, the person's answer from the app's store.
    const person = new ScriptedSupervisorDouble([{ verdict: VERDICTS.fail }]);
    const restored = new RunSupervision(
      {
        settings: settings({ who: { kind: 'person' }, max_decisions: 2 }),
        supervisor: { identity: { kind: 'person' }, decide: (input, signal) => person.decide(input, signal) },
        validate: (input) => person.validate(input),
        secrets: new SecretRegistry(),
      },
      SupervisorLedger.parse(JSON.parse(persisted)),
    );
    const sticky = await restored.superviseFailure(failed(2), live());
    expect(sticky.verdict.decided_by).toBe('sticky');
    const waiting = await restored.superviseFailure(failed(3, { failure: { code: 'template_error', message: 'unknown variable' } }), live());
    expect(waiting.verdict).toMatchObject({ decided_by: 'agent', verdict: { action: 'fail' } });
    expect(person.calls).toHaveLength(1);
    expect(restored.ledger.decisions).toBe(2);
    // The bound carried over the restart: a third decision is refused without asking.
    const over = await restored.superviseFailure(failed(4, { failure: { code: 'invalid_input', message: 'bad' } }), live());
    expect(over.verdict.decided_by).toBe('bounds');
    expect(person.calls).toHaveLength(1);
  });

  it('a run that asks for supervision it cannot get still runs, and says why', () => {
    const secrets = new SecretRegistry();
    const setup = setUpSupervision(settings(), { unavailable: 'the privacy policy does not allow api.example.com' }, { validate: async () => ({ ok: true }), secrets });
    expect(setup).toEqual({ kind: 'unavailable', notice: 'this run is not supervised: the privacy policy does not allow api.example.com' });
  });

  it('a run that does not ask for supervision gets none constructed, even with a supervisor at hand', () => {
    const double = new ScriptedSupervisorDouble();
    const deps = { validate: async () => ({ ok: true as const }), secrets: new SecretRegistry() };
    expect(setUpSupervision(settings({ enabled: false }), { identity: LOCAL, decide: (i, s) => double.decide(i, s) }, deps)).toEqual({ kind: 'off' });
    expect(setUpSupervision(settings(), { identity: LOCAL, decide: (i, s) => double.decide(i, s) }, deps).kind).toBe('on');
  });
});
