import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_REPAIR_ROUNDS, type Escalation } from './contracts';
import { emptyLedger, recordVerdict, retriesExhausted, type SupervisorLedger } from './ledger';
import { buildEscalation } from './escalation';
import { CLOUD, escalation, escalationFacts, LOCAL, PERSON, settings, supervisorInput, VERDICTS } from './testing/fixtures';
import { HANG, runDecision, ScriptedSupervisorDouble } from './testing/scripted-supervisor';

/** The decision machine's behavioural claims, each against the scripted supervisor double. */

describe('the kernel enforces the allowed set', () => {
  it('a verdict outside the allowed set is a fail decided by the kernel', async () => {
    // Spent money: retry is not allowed, whatever the supervisor says.
    const e = escalation({ spent_usd: 0.03 });
    expect(e.allowed_actions).not.toContain('retry');
    const double = new ScriptedSupervisorDouble([{ verdict: VERDICTS.retry }]);
    const out = await runDecision(supervisorInput({ escalation: e }), double);
    expect(out.verdict.verdict.action).toBe('fail');
    expect(out.verdict.decided_by).toBe('kernel');
    expect(out.verdict.verdict.reason).toMatch(/retry, which is not allowed/);
    expect(double.calls).toHaveLength(1);
  });

  it('a retry is never allowed after a cost was spent: the supervisor is not even offered it', async () => {
    const double = new ScriptedSupervisorDouble([{ verdict: VERDICTS.skip }]);
    await runDecision(supervisorInput({ escalation: escalation({ spent_usd: 0.01 }) }), double);
    expect(double.calls[0]?.input.allowed).toEqual(['skip', 'substitute', 'fail']);
  });

  it('a streaming node never gets skip: a supervisor that says skip gets fail, decided by the kernel', async () => {
    const e = escalation({ streaming: true });
    expect(e.allowed_actions).toEqual(['end_stream', 'fail']);
    const out = await runDecision(supervisorInput({ escalation: e }), new ScriptedSupervisorDouble([{ verdict: VERDICTS.skip }]));
    expect(out.verdict).toMatchObject({ verdict: { action: 'fail' }, decided_by: 'kernel' });
    const ended = await runDecision(supervisorInput({ escalation: e }), new ScriptedSupervisorDouble([{ verdict: VERDICTS.end_stream }]));
    expect(ended.verdict).toMatchObject({ verdict: { action: 'end_stream' }, decided_by: 'agent' });
  });

  it('a malformed verdict is a fail decided by the kernel, said in words, the answer kept on the verdict', async () => {
    const out = await runDecision(supervisorInput(), new ScriptedSupervisorDouble([{ verdict: { action: 'delete_everything' } }]));
    expect(out.verdict).toMatchObject({
      verdict: { action: 'fail', reason: 'the supervisor gave no usable verdict in its answer, so the node fails as it would have without supervision' },
      decided_by: 'kernel',
      malformed: { problem: 'the verdict does not match the verdict schema', answer: '{"action":"delete_everything"}', repairs: 0 },
    });
    // A supervisor that ran out of repair rounds says what it was given; the kernel keeps that.
    const repaired = await runDecision(supervisorInput(), new ScriptedSupervisorDouble([{ verdict: undefined, malformed: { problem: 'the answer is not a JSON object', answer: 'skip it', repairs: 3 } }]));
    expect(repaired.verdict).toMatchObject({ decided_by: 'kernel', verdict: { reason: expect.stringContaining('in 4 answers (3 repair rounds)') }, malformed: { answer: 'skip it', repairs: 3 } });
  });

  it("the supervisor is handed its earlier decisions of this run (the ledger's memory)", async () => {
    const memory = [{ node: 'extract', invocation: 'extract[each=1]', action: 'skip' as const, decided_by: 'agent' as const, reason: 'poisoned' }];
    const double = new ScriptedSupervisorDouble([{ verdict: VERDICTS.skip }]);
    const out = await runDecision(supervisorInput({ ledger: { decisions: 1, memory } }), double);
    expect(double.calls[0]?.input.memory).toEqual(memory);
    expect(out.ledger.memory).toHaveLength(2);
  });

  it('when only fail is allowed, no supervisor is asked', async () => {
    const double = new ScriptedSupervisorDouble([{ verdict: VERDICTS.skip }]);
    const out = await runDecision(supervisorInput({ escalation: escalation({ emitted: true }) }), double);
    expect(out.verdict).toMatchObject({ verdict: { action: 'fail' }, decided_by: 'kernel', turns: 0 });
    expect(double.calls).toEqual([]);
  });
});

describe('substitute', () => {
  it('a substitute that validates is applied, decided by the agent', async () => {
    const double = new ScriptedSupervisorDouble([{ verdict: VERDICTS.substitute }], [{ ok: true }]);
    const out = await runDecision(supervisorInput(), double);
    expect(out.verdict).toMatchObject({ verdict: VERDICTS.substitute, decided_by: 'agent', turns: 1 });
    expect(double.validations).toEqual([{ escalation: expect.objectContaining({ node: 'extract' }), value: VERDICTS.substitute.value }]);
  });

  it(`a substitute that keeps failing validation goes back for ${MAX_REPAIR_ROUNDS} repairs with the problem, then fails`, async () => {
    const bad = { ok: false as const, problems: 'output: expected text' };
    const double = new ScriptedSupervisorDouble(Array(5).fill({ verdict: VERDICTS.substitute }), Array(5).fill(bad));
    const out = await runDecision(supervisorInput(), double);
    expect(double.calls).toHaveLength(1 + MAX_REPAIR_ROUNDS);
    expect(double.calls[1]?.input.feedback).toMatch(/expected text/);
    expect(out.verdict).toMatchObject({ verdict: { action: 'fail' }, decided_by: 'kernel', turns: 1 + MAX_REPAIR_ROUNDS });
    // One decision, however many repair turns.
    expect(out.ledger.decisions).toBe(1);
  });

  it('a repair may switch to another allowed action', async () => {
    const double = new ScriptedSupervisorDouble([{ verdict: VERDICTS.substitute }, { verdict: VERDICTS.skip }], [{ ok: false, problems: 'bad' }]);
    const out = await runDecision(supervisorInput(), double);
    expect(out.verdict).toMatchObject({ verdict: { action: 'skip' }, decided_by: 'agent', turns: 2 });
  });
});

describe('bounds', () => {
  it('past max decisions the verdict is fail, decided by bounds, with no supervisor call', async () => {
    const double = new ScriptedSupervisorDouble([{ verdict: VERDICTS.skip }]);
    const out = await runDecision(supervisorInput({ ledger: { decisions: 5 } }), double);
    expect(out.verdict).toMatchObject({ verdict: { action: 'fail' }, decided_by: 'bounds' });
    expect(double.calls).toEqual([]);
  });

  it('an invocation that used its retries is not offered retry again', async () => {
    const e = escalation();
    let ledger = emptyLedger();
    const first = await runDecision({ ...supervisorInput({ escalation: e }), ledger }, new ScriptedSupervisorDouble([{ verdict: VERDICTS.retry }]));
    expect(first.verdict).toMatchObject({ verdict: { action: 'retry' }, decided_by: 'agent' });
    ledger = first.ledger;
    expect(retriesExhausted(ledger, settings(), e.invocation_key)).toBe(true);
    // The host builds the next escalation with what the ledger says; a retry now is outside the set.
    const again = buildEscalation(escalationFacts({ attempt: 3, retries_exhausted: true }), []);
    const double = new ScriptedSupervisorDouble([{ verdict: VERDICTS.retry }]);
    const second = await runDecision({ ...supervisorInput({ escalation: again }), ledger }, double);
    expect(double.calls[0]?.input.allowed).not.toContain('retry');
    expect(second.verdict).toMatchObject({ verdict: { action: 'fail' }, decided_by: 'kernel' });
  });

  it('a retry over the bound on an escalation that still offers it is a fail decided by bounds', async () => {
    const out = await runDecision(supervisorInput({ ledger: { retries: { 'extract[each=4]': 1 } } }), new ScriptedSupervisorDouble([{ verdict: VERDICTS.retry }]));
    expect(out.verdict).toMatchObject({ verdict: { action: 'fail' }, decided_by: 'bounds' });
  });

  it('the cost cap is reserved before each turn: a turn that would cross it is refused before the supervisor is asked', async () => {
    const double = new ScriptedSupervisorDouble([{ verdict: VERDICTS.skip }]);
    const out = await runDecision(supervisorInput({ settings: { cost_cap_usd: 0.02 }, ledger: { spent_usd: 0.015 } }), double);
    expect(out.verdict).toMatchObject({ verdict: { action: 'fail' }, decided_by: 'bounds' });
    expect(out.verdict.verdict.reason).toMatch(/cross the cap/);
    expect(double.calls).toEqual([]);
  });

  it('a repair turn that would cross the cap is refused too, and what was spent is counted', async () => {
    // One turn reserves about $0.0096 (about 1,560 prompt tokens at $1/M + 2,048 output at $4/M): room for one, not two.
    const double = new ScriptedSupervisorDouble([{ verdict: VERDICTS.substitute }, { verdict: VERDICTS.skip }], [{ ok: false, problems: 'bad' }]);
    const out = await runDecision(supervisorInput({ settings: { cost_cap_usd: 0.015 } }), double);
    expect(double.calls).toHaveLength(1);
    expect(out.verdict).toMatchObject({ verdict: { action: 'fail' }, decided_by: 'bounds', turns: 1 });
    expect(out.ledger.spent_usd).toBeGreaterThan(0);
    expect(out.ledger.spent_usd).toBeLessThanOrEqual(0.015);
  });

  it('an unpriced cloud model is refused while a cap is set; a local model and a person cost nothing', async () => {
    const unpriced = await runDecision(supervisorInput({ settings: { cost_cap_usd: 1, pricing: {} } }), new ScriptedSupervisorDouble([{ verdict: VERDICTS.skip }]));
    expect(unpriced.verdict).toMatchObject({ verdict: { action: 'fail' }, decided_by: 'bounds' });
    expect(unpriced.verdict.verdict.reason).toMatch(/has no price/);
    for (const who of [LOCAL, PERSON]) {
      const out = await runDecision(supervisorInput({ who, settings: { cost_cap_usd: 0, pricing: {} } }), new ScriptedSupervisorDouble([{ verdict: VERDICTS.skip }]));
      expect(out.verdict).toMatchObject({ verdict: { action: 'skip' }, decided_by: 'agent', cost_usd: 0 });
    }
  });

  it('the provider-reported cost is what counts when it says one', async () => {
    const out = await runDecision(supervisorInput({ who: CLOUD }), new ScriptedSupervisorDouble([{ verdict: VERDICTS.skip, cost_usd: 0.0012 }]));
    expect(out.ledger.spent_usd).toBeCloseTo(0.0012, 8);
  });

  it('a supervisor that does not answer in time is aborted and the verdict is the default fail', async () => {
    const double = new ScriptedSupervisorDouble([HANG]);
    const out = await runDecision(supervisorInput(), double);
    expect(out.verdict).toMatchObject({ verdict: { action: 'fail' }, decided_by: 'default' });
    expect(out.verdict.verdict.reason).toMatch(/did not decide within 30000 ms/);
    expect(double.calls[0]?.aborted).toBe(true);
  });

  it('a supervisor that fails gives the default fail', async () => {
    const out = await runDecision(supervisorInput(), new ScriptedSupervisorDouble([new Error('connection refused')]));
    expect(out.verdict).toMatchObject({ verdict: { action: 'fail' }, decided_by: 'default' });
    expect(out.verdict.verdict.reason).toMatch(/connection refused/);
  });

  it('supervision that is off decides nothing: fail, by default', async () => {
    const double = new ScriptedSupervisorDouble([{ verdict: VERDICTS.skip }]);
    const out = await runDecision(supervisorInput({ settings: { enabled: false } }), double);
    expect(out.verdict).toMatchObject({ verdict: { action: 'fail' }, decided_by: 'default' });
    expect(double.calls).toEqual([]);
  });
});

describe('sticky verdicts', () => {
  /** Runs a batch: items at `poisoned` fail with a signed failure, items at `plain` with an unsigned one. */
  async function batch(size: number, poisoned: Set<number>, plain: Set<number>): Promise<{ calls: number; skipped: number; ledger: SupervisorLedger }> {
    let ledger = emptyLedger();
    const double = new ScriptedSupervisorDouble(Array(size).fill({ verdict: VERDICTS.skip }));
    let skipped = 0;
    for (let i = 0; i < size; i++) {
      if (!poisoned.has(i) && !plain.has(i)) continue;
      const e: Escalation = escalation({
        lineage: [{ iterate: 'each', index: i }],
        failure_signature: poisoned.has(i) ? { code: 'schema_mismatch', http_status: 422 } : {},
        detail: `item ${i} broke`,
      });
      const out = await runDecision(supervisorInput({ escalation: e, settings: { max_decisions: 1000 }, ledger }), double);
      ledger = out.ledger;
      if (out.verdict.verdict.action === 'skip') skipped += 1;
    }
    return { calls: double.calls.length, skipped, ledger };
  }

  it('7 poisoned items in 200 cost one decision, wherever they are; a failure with no signature asks every time (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.nat({ max: 199 }), { minLength: 7, maxLength: 12 }), async (indexes) => {
        const poisoned = new Set(indexes.slice(0, 7));
        const plain = new Set(indexes.slice(7));
        const { calls, skipped, ledger } = await batch(200, poisoned, plain);
        expect(calls).toBe(1 + plain.size);
        expect(skipped).toBe(7 + plain.size);
        expect(ledger.decisions).toBe(1 + plain.size);
      }),
      { numRuns: 30 },
    );
  });

  it('a sticky verdict is applied only where it is allowed: a sticky skip does not reach a streaming failure', async () => {
    const sticky = { 'extract|code=invalid_output|http=|errno=': 'skip' as const };
    const direct = await runDecision(supervisorInput({ ledger: { sticky } }), new ScriptedSupervisorDouble());
    expect(direct.verdict).toMatchObject({ verdict: { action: 'skip' }, decided_by: 'sticky', turns: 0 });
    const double = new ScriptedSupervisorDouble([{ verdict: VERDICTS.end_stream }]);
    const streaming = await runDecision(supervisorInput({ escalation: escalation({ streaming: true }), ledger: { sticky } }), double);
    expect(streaming.verdict).toMatchObject({ verdict: { action: 'end_stream' }, decided_by: 'agent' });
  });

  it('only the supervisor’s own skip or fail sticks: a timeout or a refused verdict does not', () => {
    const e = escalation();
    const byDefault = recordVerdict(emptyLedger(), e, { escalation_id: e.id, verdict: VERDICTS.fail, decided_by: 'default', turns: 1, cost_usd: 0 });
    const byKernel = recordVerdict(emptyLedger(), e, { escalation_id: e.id, verdict: VERDICTS.fail, decided_by: 'kernel', turns: 1, cost_usd: 0 });
    const byAgent = recordVerdict(emptyLedger(), e, { escalation_id: e.id, verdict: VERDICTS.fail, decided_by: 'agent', turns: 1, cost_usd: 0 });
    expect(byDefault.sticky).toEqual({});
    expect(byKernel.sticky).toEqual({});
    expect(Object.values(byAgent.sticky)).toEqual(['fail']);
  });
});
