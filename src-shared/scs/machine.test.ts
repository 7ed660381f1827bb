import { afterEach, describe, expect, it } from 'vitest';
import type { ScsSettings } from './contracts';
import { FAILING_CALL, MALFORMED_DECISION, MALFORMED_PLAN, PLANS, failedFact, monitorAnswer, okFact, scsInput, stoppingFact } from './testing/fixtures';
import { eventContractProblems } from './testing/invariants';
import { ScsHarness } from './testing/scripted-roles';

/**
 * The SCS phase controller, driven the way the run loop drives it: scripted committee and monitor
 * models answer (or fail), ROUND_DONE / FINISH_REQUESTED come from the executor's rounds, and each
 * claim is checked on the machine's state, its context, what each role was asked, and its events.
 */

let live: ScsHarness[] = [];
afterEach(() => {
  // Every event a test produced must also be a valid RunEvent once the host stamps it.
  for (const h of live) {
    expect(eventContractProblems(h.events())).toEqual([]);
    h.stop();
  }
  live = [];
});

async function start(opts: { settings?: Partial<ScsSettings>; budget?: number; writeWork?: boolean } = {}): Promise<ScsHarness> {
  const h = await ScsHarness.start(scsInput(opts));
  live.push(h);
  return h;
}

/** accept_phase that keeps the phase going (a progress check, not the phase's end). */
const CONTINUE = { next_required_action: 'supervisor_continue' } as const;

/** Committee drafts `plan`, the monitor approves it: the phase is running. */
async function approved(h: ScsHarness, plan: unknown = PLANS.summarise): Promise<void> {
  await h.answer('committee', plan);
  await h.answer('monitor', monitorAnswer('approve_plan'));
  expect(h.value).toBe('executing');
}

describe('the plan gate', () => {
  it('an approved plan starts the phase: the executor runs with its allowed tools, announced by scs.supervisor.phase_started', async () => {
    const h = await start();
    expect(h.waitingOn()).toBe('committee');
    expect(h.calls('committee')).toEqual([{ phase: 1, attempt: 1, feedback: [], facts: [] }]);

    await h.answer('committee', PLANS.summarise);
    expect(h.value).toBe('reviewingPlan');
    expect(h.calls('monitor')).toEqual([{ trigger: 'plan', phase: 1, plan: PLANS.summarise, facts: [], rounds_used: 0, budget: 12 }]);

    await h.answer('monitor', monitorAnswer('approve_plan'));
    expect(h.value).toBe('executing');
    expect(h.context.plan?.allowed_tools).toEqual(['read_file', 'write_file']);
    expect(h.context.phase).toBe(1);
    expect(h.eventTypes()).toEqual(['scs.committee.plan_drafted', 'scs.student.plan_approved', 'scs.supervisor.phase_started']);
    expect(h.eventsOf('scs.committee.plan_drafted')[0]).toMatchObject({ phase: 1, attempt: 1, plan: PLANS.summarise });
    // The approval is about the phase being started, not the one before it.
    expect(h.eventsOf('scs.student.plan_approved')[0]).toMatchObject({ phase: 1, trigger: 'plan', decision: monitorAnswer('approve_plan') });
    expect(h.eventsOf('scs.supervisor.phase_started')).toEqual([{ type: 'scs.supervisor.phase_started', phase: 1, plan: PLANS.summarise }]);
  });

  it('a vetoed plan goes back to the committee with the veto reason, and the approved redraft is what runs', async () => {
    const h = await start();
    await h.answer('committee', PLANS.summarise);
    await h.answer('monitor', monitorAnswer('veto_plan'));

    expect(h.value).toBe('planning');
    expect(h.calls('committee')[1]).toEqual({ phase: 1, attempt: 2, feedback: [monitorAnswer('veto_plan').reason], facts: [] });
    expect(h.eventsOf('scs.supervisor.phase_started')).toEqual([]);

    await approved(h, PLANS.replanned);
    expect(h.context.plan).toEqual(PLANS.replanned);
    expect(h.eventTypes()).toEqual([
      'scs.committee.plan_drafted',
      'scs.student.plan_vetoed',
      'scs.committee.plan_drafted',
      'scs.student.plan_approved',
      'scs.supervisor.phase_started',
    ]);
  });

  it('three vetoes with two committee retries block the phase with every reason listed, never approving silently', async () => {
    const h = await start({ settings: { max_committee_retries: 2 } });
    const reasons = ['the plan overwrites notes.md', 'the plan never reads the notes', 'the plan writes outside the workspace'];
    for (const reason of reasons) {
      await h.answer('committee', PLANS.summarise);
      await h.answer('monitor', monitorAnswer('veto_plan', { reason }));
    }

    expect(h.value).toBe('blocked');
    expect(h.status).toBe('done');
    expect(h.calls('committee').map((c) => c.attempt)).toEqual([1, 2, 3]);
    expect(h.calls('committee')[2]?.feedback).toEqual(reasons.slice(0, 2));
    expect(h.context.blockedReasons).toEqual([...reasons, 'no plan was approved after 3 draft(s)']);
    expect(h.context.plan).toBeUndefined();
    expect(h.eventsOf('scs.supervisor.phase_started')).toEqual([]);
    expect(h.eventsOf('scs.student.plan_vetoed')).toHaveLength(3);
    expect(h.eventsOf('scs.supervisor.phase_blocked')).toEqual([{ type: 'scs.supervisor.phase_blocked', phase: 1, reasons: h.context.blockedReasons }]);
    expect(h.eventTypes().at(-1)).toBe('scs.supervisor.phase_blocked');
  });

  it('a rethink at plan time is a new draft with the monitor reason, and counts against the committee retries', async () => {
    const h = await start({ settings: { max_committee_retries: 1 } });
    await h.answer('committee', PLANS.summarise);
    await h.answer('monitor', monitorAnswer('rethink_plan'));

    expect(h.eventsOf('scs.student.rethink_requested')[0]).toMatchObject({ phase: 1, trigger: 'plan' });
    expect(h.calls('committee')[1]?.feedback).toEqual([monitorAnswer('rethink_plan').reason]);

    await h.answer('committee', PLANS.summarise);
    await h.answer('monitor', monitorAnswer('rethink_plan'));
    expect(h.value).toBe('blocked');
    expect(h.context.blockedReasons.at(-1)).toBe('no plan was approved after 2 draft(s)');
  });

  it('a malformed committee plan is never reviewed: the committee is asked again with the schema problem, then the phase blocks', async () => {
    const h = await start({ settings: { max_committee_retries: 2 } });
    await h.answer('committee', MALFORMED_PLAN);
    expect(h.value).toBe('planning');
    expect(h.calls('committee')[1]?.feedback[0]).toMatch(/^the committee's plan was malformed: .*plan/);

    await h.answer('committee', MALFORMED_PLAN);
    await h.answer('committee', MALFORMED_PLAN);
    expect(h.value).toBe('blocked');
    expect(h.calls('monitor')).toEqual([]);
    expect(h.context.blockedReasons).toHaveLength(3);
    expect(h.context.blockedReasons.every((r) => r.startsWith("the committee's plan was malformed"))).toBe(true);
    const drafted = h.eventsOf('scs.committee.plan_drafted');
    expect(drafted.map((d) => [d.attempt, d.plan, typeof d.error])).toEqual([
      [1, undefined, 'string'],
      [2, undefined, 'string'],
      [3, undefined, 'string'],
    ]);
    expect(h.eventsOf('scs.supervisor.phase_blocked')).toHaveLength(1);
  });

  it('a malformed draft followed by a valid one is reviewed and can run', async () => {
    const h = await start();
    await h.answer('committee', MALFORMED_PLAN);
    await approved(h);
    expect(h.context.plan).toEqual(PLANS.summarise);
    expect(h.calls('monitor')[0]?.plan).toEqual(PLANS.summarise);
  });

  it('a committee error blocks, keeping the earlier veto reasons', async () => {
    const h = await start();
    await h.answer('committee', PLANS.summarise);
    await h.answer('monitor', monitorAnswer('veto_plan'));
    await h.fail('committee', 'model server unreachable');

    expect(h.value).toBe('blocked');
    expect(h.context.blockedReasons).toEqual([monitorAnswer('veto_plan').reason, 'the committee could not draft a plan: model server unreachable']);
    expect(h.eventsOf('scs.supervisor.phase_blocked')[0]?.reasons).toEqual(h.context.blockedReasons);
  });
});

describe("the student's choice among alternative plans", () => {
  it("an edit that widens the chosen plan's tools is refused in words and the student is asked again; the plan that runs has only the committee's tools", async () => {
    const h = await start({ settings: { alternatives: 2 } });
    await h.answer('committee', { alternatives: [PLANS.summarise, PLANS.inspect] });
    await h.answer('monitor', monitorAnswer('approve_plan', { choice: 2, edit: { allowed_tools: ['list_directory', 'read_file', 'write_file'] } }));
    expect(h.value).toBe('reviewingPlan');
    const [warning] = h.eventsOf('scs.warning');
    expect(warning?.message).toContain('adds a tool the committee did not allow ("write_file")');
    expect(warning?.message).toContain('The student is asked again.');
    expect(h.eventsOf('scs.student.plan_approved')).toEqual([]);

    // Narrowing is allowed: the edited plan keeps one of the committee's two tools.
    await h.answer('monitor', monitorAnswer('approve_plan', { choice: 2, edit: { allowed_tools: ['read_file'] } }));
    expect(h.value).toBe('executing');
    expect(h.context.plan?.allowed_tools).toEqual(['read_file']);
  });
});

describe('the execution monitor', () => {
  it('a failed tool makes the monitor review the phase with the failure as evidence; accept_phase with supervisor_continue lets the executor continue', async () => {
    const h = await start();
    await approved(h);
    await h.round(okFact(1));
    expect(h.value).toBe('executing');
    expect(h.calls('monitor')).toHaveLength(1);

    await h.round(failedFact(2));
    expect(h.value).toBe('monitoring');
    expect(h.calls('monitor')[1]).toEqual({ trigger: 'tool_failure', phase: 1, plan: PLANS.summarise, facts: [okFact(1), failedFact(2)], rounds_used: 2, budget: 12 });

    await h.answer('monitor', monitorAnswer('accept_phase', CONTINUE));
    expect(h.value).toBe('executing');
    expect(h.eventsOf('scs.student.phase_accepted')[0]).toMatchObject({ phase: 1, trigger: 'tool_failure' });
  });

  it('a phase rejected after a failed tool goes back to the committee with the reason and the facts, and the replanned phase runs', async () => {
    const h = await start();
    await approved(h);
    await h.round(failedFact(1));
    await h.answer('monitor', monitorAnswer('reject_phase'));

    expect(h.value).toBe('planning');
    expect(h.calls('committee')[1]).toEqual({ phase: 2, attempt: 1, feedback: [monitorAnswer('reject_phase').reason], facts: [failedFact(1)] });
    expect(h.eventsOf('scs.student.phase_rejected')[0]).toMatchObject({ phase: 1, trigger: 'tool_failure' });

    await approved(h, PLANS.replanned);
    expect(h.context).toMatchObject({ phase: 2, plan: PLANS.replanned, replans: 1 });
    expect(h.eventsOf('scs.supervisor.phase_started').map((e) => [e.phase, e.plan.phase_goal])).toEqual([
      [1, PLANS.summarise.phase_goal],
      [2, PLANS.replanned.phase_goal],
    ]);
    expect(h.eventsOf('scs.student.plan_approved').map((e) => e.phase)).toEqual([1, 2]);
  });

  it('replans are bounded: a rejection with no replans left blocks with the reason', async () => {
    const h = await start({ settings: { max_replans: 1 } });
    await approved(h);
    await h.round(failedFact(1));
    await h.answer('monitor', monitorAnswer('rethink_plan'));
    await approved(h, PLANS.replanned);
    await h.round(failedFact(2, 'write_file {"path":"drafts/summary.md"}'));
    await h.answer('monitor', monitorAnswer('reject_phase', { reason: 'the drafts folder is read-only too' }));

    expect(h.value).toBe('blocked');
    expect(h.calls('committee')).toHaveLength(2);
    expect(h.context.blockedReasons).toEqual(['the drafts folder is read-only too', 'no replans left (1)']);
    expect(h.eventsOf('scs.supervisor.phase_blocked')).toEqual([{ type: 'scs.supervisor.phase_blocked', phase: 2, reasons: h.context.blockedReasons }]);
  });

  it('the seed regression: after a failed tool the executor tries to finish, the monitor rejects it, and the executor goes back with the reason', async () => {
    const h = await start();
    await approved(h);
    await h.round(failedFact(1));
    await h.answer('monitor', monitorAnswer('accept_phase', { ...CONTINUE, reason: 'one failure, the plan still holds' }));
    await h.finish(2);

    expect(h.value).toBe('monitoring');
    expect(h.calls('monitor').at(-1)).toMatchObject({ trigger: 'finish', facts: [failedFact(1)] });

    await h.answer('monitor', monitorAnswer('finish_rejected'));
    expect(h.value).toBe('executing');
    expect(h.status).toBe('active');
    expect(h.context.finishRejection).toBe(monitorAnswer('finish_rejected').reason);
    expect(h.eventsOf('scs.student.finish_rejected')[0]).toMatchObject({ trigger: 'finish', decision: monitorAnswer('finish_rejected') });
    expect(h.eventsOf('scs.student.finish_allowed')).toEqual([]);

    // The executor fixes it; the next finish, with evidence, is allowed.
    await h.round(okFact(2, { tool: 'write_file', call_key: 'write_file {"path":"summary.md"}', summary: 'wrote summary.md' }));
    await h.finish(3);
    await h.answer('monitor', monitorAnswer('finish_allowed'));
    expect(h.value).toBe('finished');
    expect(h.status).toBe('done');
  });

  it('a finish the monitor allows ends the controller in finished', async () => {
    const h = await start();
    await approved(h);
    await h.round(okFact(1));
    await h.finish(2);
    await h.answer('monitor', monitorAnswer('finish_allowed'));

    expect(h.value).toBe('finished');
    expect(h.eventTypes().slice(-1)).toEqual(['scs.student.finish_allowed']);
    expect(h.eventsOf('scs.supervisor.phase_blocked')).toEqual([]);
  });

  it('a finish allowed without evidence is not a usable answer: write work blocks instead of finishing', async () => {
    const h = await start();
    await approved(h);
    await h.round(okFact(1));
    await h.finish(2);
    await h.answer('monitor', monitorAnswer('finish_allowed', { evidence: [] }));

    expect(h.value).toBe('blocked');
    expect(h.context.blockedReasons.join(' ')).toMatch(/cites no evidence/);
    expect(h.eventsOf('scs.student.finish_allowed')).toEqual([]);
  });

  it('the same failing call twice is a loop: the monitor is asked with the loop_guard trigger', async () => {
    const h = await start();
    await approved(h);
    await h.round(failedFact(1));
    expect(h.calls('monitor').at(-1)?.trigger).toBe('tool_failure');
    await h.answer('monitor', monitorAnswer('accept_phase', CONTINUE));

    await h.round(failedFact(2));
    expect(h.calls('monitor').at(-1)?.trigger).toBe('loop_guard');
    await h.answer('monitor', monitorAnswer('rethink_plan', { reason: `repeated failed ${FAILING_CALL}` }));
    expect(h.eventsOf('scs.student.rethink_requested')[0]).toMatchObject({ trigger: 'loop_guard' });
    expect(h.calls('committee').at(-1)?.feedback).toEqual([`repeated failed ${FAILING_CALL}`]);
  });

  it('two different failing calls are failures, not a loop', async () => {
    const h = await start();
    await approved(h);
    await h.round(failedFact(1, 'write_file {"path":"a.md"}'));
    await h.answer('monitor', monitorAnswer('accept_phase', CONTINUE));
    await h.round(failedFact(2, 'write_file {"path":"b.md"}'));
    expect(h.calls('monitor').at(-1)?.trigger).toBe('tool_failure');
  });

  it('the monitor reviews progress every N rounds, and not in between', async () => {
    const h = await start({ settings: { monitor_every: 3 }, budget: 20 });
    await approved(h);
    const triggersAfter: (string | undefined)[] = [];
    for (let r = 1; r <= 6; r++) {
      const before = h.calls('monitor').length;
      await h.round(okFact(r));
      triggersAfter.push(h.calls('monitor').length > before ? h.calls('monitor').at(-1)?.trigger : undefined);
      if (h.value === 'monitoring') await h.answer('monitor', monitorAnswer('accept_phase', CONTINUE));
    }
    expect(triggersAfter).toEqual([undefined, undefined, 'periodic', undefined, undefined, 'periodic']);
  });

  it('the monitor sees at most the last 20 round facts, with the rounds used and the budget', async () => {
    const h = await start({ settings: { monitor_every: 22 }, budget: 40 });
    await approved(h);
    for (let r = 1; r <= 22; r++) await h.round(okFact(r));
    const input = h.calls('monitor').at(-1);
    expect(input?.trigger).toBe('periodic');
    expect(input?.facts.map((f) => f.round)).toEqual(Array.from({ length: 20 }, (_, i) => i + 3));
    expect(input).toMatchObject({ rounds_used: 22, budget: 40 });
  });
});

describe('the step budget', () => {
  it('near the limit the monitor may extend the budget, by at most extension_rounds, at most max_extensions times', async () => {
    const h = await start({ settings: { budget_warning: 1, extension_rounds: 3, max_extensions: 1, monitor_every: 50 }, budget: 4 });
    await approved(h);
    for (let r = 1; r <= 3; r++) await h.round(okFact(r));
    expect(h.calls('monitor').at(-1)).toMatchObject({ trigger: 'budget', rounds_used: 3, budget: 4 });

    await h.answer('monitor', monitorAnswer('extend_steps', { extend_by: 10 }));
    expect(h.value).toBe('executing');
    expect(h.context).toMatchObject({ budget: 7, extensions: 1 });
    expect(h.eventsOf('scs.budget.extended')).toEqual([
      { type: 'scs.budget.extended', phase: 1, trigger: 'budget', decision: monitorAnswer('extend_steps', { extend_by: 10 }), budget: 7 },
    ]);

    // The one extension is used: near the new limit the monitor is not asked again.
    for (let r = 4; r <= 7; r++) await h.round(okFact(r));
    expect(h.value).toBe('executing');
    expect(h.calls('monitor').filter((c) => c.trigger === 'budget')).toHaveLength(1);
  });

  it('an extension without a size grants extension_rounds', async () => {
    const h = await start({ settings: { budget_warning: 1, extension_rounds: 2, monitor_every: 50 }, budget: 2 });
    await approved(h);
    await h.round(okFact(1));
    await h.answer('monitor', monitorAnswer('extend_steps'));
    expect(h.context.budget).toBe(4);
  });

  it('a denied extension keeps the budget and is not asked again for the same budget', async () => {
    const h = await start({ settings: { budget_warning: 2, monitor_every: 50 }, budget: 5 });
    await approved(h);
    for (let r = 1; r <= 3; r++) await h.round(okFact(r));
    expect(h.calls('monitor').at(-1)?.trigger).toBe('budget');
    await h.answer('monitor', monitorAnswer('deny_extension'));

    expect(h.value).toBe('executing');
    expect(h.context).toMatchObject({ budget: 5, extensions: 0 });
    expect(h.eventsOf('scs.budget.denied')[0]).toMatchObject({ trigger: 'budget', budget: 5 });
    await h.round(okFact(4));
    await h.round(okFact(5));
    expect(h.value).toBe('executing');
    expect(h.calls('monitor').filter((c) => c.trigger === 'budget')).toHaveLength(1);
  });

  it('the budget question is still asked when the monitor reviews every round', async () => {
    const h = await start({ settings: { budget_warning: 1, monitor_every: 1 }, budget: 3 });
    await approved(h);
    const triggers: string[] = [];
    for (let r = 1; r <= 3 && h.value === 'executing'; r++) {
      await h.round(okFact(r));
      triggers.push(h.calls('monitor').at(-1)?.trigger ?? 'none');
      const trigger = h.calls('monitor').at(-1)?.trigger;
      await h.answer('monitor', trigger === 'budget' ? monitorAnswer('extend_steps') : monitorAnswer('accept_phase', CONTINUE));
    }
    expect(triggers).toContain('budget');
    expect(h.context.extensions).toBe(1);
  });
});

describe('unusable monitor answers', () => {
  it('an answer of the wrong kind for its trigger is unusable: approve_plan at the finish does not finish', async () => {
    const h = await start();
    await approved(h);
    await h.finish(1);
    await h.answer('monitor', monitorAnswer('approve_plan'));

    expect(h.value).toBe('blocked');
    expect(h.context.blockedReasons[0]).toMatch(/"approve_plan" does not answer a finish review .*write work fails closed/);
    expect(h.eventsOf('scs.student.plan_approved')).toHaveLength(1); // the plan's, not the finish's
    expect(h.eventsOf('scs.student.finish_allowed')).toEqual([]);
  });

  it('finish_allowed in answer to a plan review does not start the phase', async () => {
    const h = await start();
    await h.answer('committee', PLANS.summarise);
    await h.answer('monitor', monitorAnswer('finish_allowed'));
    expect(h.value).toBe('blocked');
    expect(h.eventsOf('scs.supervisor.phase_started')).toEqual([]);
  });

  it('a malformed answer never reuses the previous decision: after a veto, write work fails closed', async () => {
    const h = await start();
    await h.answer('committee', PLANS.summarise);
    await h.answer('monitor', monitorAnswer('veto_plan'));
    await h.answer('committee', PLANS.replanned);
    await h.answer('monitor', MALFORMED_DECISION);

    expect(h.value).toBe('blocked');
    expect(h.context.decision).toBeUndefined();
    expect(h.context.blockedReasons[0]).toMatch(/^the monitor's answer was malformed: .*write work fails closed$/);
    expect(h.eventsOf('scs.student.plan_vetoed')).toHaveLength(1);
  });

  it('a malformed answer never reuses the previous decision: a granted extension is not granted twice', async () => {
    const h = await start({ settings: { budget_warning: 1, extension_rounds: 2, max_extensions: 1, monitor_every: 50 }, budget: 2, writeWork: false });
    await approved(h);
    await h.round(okFact(1));
    await h.answer('monitor', monitorAnswer('extend_steps'));
    expect(h.context.budget).toBe(4);
    await h.round(failedFact(2));
    await h.answer('monitor', MALFORMED_DECISION);

    expect(h.value).toBe('executing');
    expect(h.context).toMatchObject({ budget: 4, extensions: 1 });
    expect(h.eventsOf('scs.budget.extended')).toHaveLength(1);
    expect(h.eventsOf('scs.warning')).toHaveLength(1);
  });
});

describe('monitor failures: closed for write work, open for read-only work', () => {
  it('a monitor error on write work blocks the plan (fail closed)', async () => {
    const h = await start({ writeWork: true });
    await h.answer('committee', PLANS.summarise);
    await h.fail('monitor', 'monitor timed out');

    expect(h.value).toBe('blocked');
    expect(h.context.blockedReasons).toEqual(['the monitor failed: monitor timed out; write work fails closed']);
    expect(h.eventsOf('scs.supervisor.phase_started')).toEqual([]);
    expect(h.eventsOf('scs.warning')).toEqual([]);
  });

  it('a monitor error on write work after a failed tool blocks; at the finish it never finishes', async () => {
    const afterFailure = await start({ writeWork: true });
    await approved(afterFailure);
    await afterFailure.round(failedFact(1));
    await afterFailure.fail('monitor', 'monitor timed out');
    expect(afterFailure.value).toBe('blocked');

    const atFinish = await start({ writeWork: true });
    await approved(atFinish);
    await atFinish.finish(1);
    await atFinish.fail('monitor', 'monitor timed out');
    expect(atFinish.value).toBe('blocked');
    expect(atFinish.eventsOf('scs.student.finish_allowed')).toEqual([]);
  });

  it('a monitor error on read-only work starts the drafted phase with an scs.warning (fail open)', async () => {
    const h = await start({ writeWork: false });
    await h.answer('committee', PLANS.inspect);
    await h.fail('monitor', 'monitor timed out');

    expect(h.value).toBe('executing');
    expect(h.context.plan).toEqual(PLANS.inspect);
    expect(h.eventTypes()).toEqual(['scs.committee.plan_drafted', 'scs.warning', 'scs.supervisor.phase_started']);
    expect(h.eventsOf('scs.warning')[0]?.message).toMatch(/the monitor failed: monitor timed out.*read-only work continues/);
  });

  it('a monitor error on read-only work continues after a failed tool and at the finish, each with an scs.warning', async () => {
    const h = await start({ writeWork: false });
    await approved(h, PLANS.inspect);
    await h.round(failedFact(1, 'read_file {"path":"missing.md"}'));
    await h.fail('monitor', 'monitor timed out');
    expect(h.value).toBe('executing');

    await h.finish(2);
    await h.answer('monitor', MALFORMED_DECISION);
    expect(h.value).toBe('finished');
    expect(h.eventsOf('scs.warning')).toHaveLength(2);
  });
});

describe('rolling phases', () => {
  it('a run moves to phase 2 after accept_phase: the committee drafts the next milestone, which runs once approved', async () => {
    const h = await start({ settings: { monitor_every: 2 } });
    await approved(h);
    await h.round(okFact(0));
    await h.round(okFact(1));
    expect(h.calls('monitor').at(-1)).toMatchObject({ trigger: 'periodic', phase: 1 });
    await h.answer('monitor', monitorAnswer('accept_phase', { reason: 'summary.md exists; the first milestone is met' }));

    expect(h.value).toBe('planning');
    expect(h.calls('committee').at(-1)).toMatchObject({ phase: 2, attempt: 1, feedback: [] });
    await approved(h, PLANS.inspect);
    expect(h.context.phase).toBe(2);
    expect(h.context.plan).toEqual(PLANS.inspect);
    // The phase's own rounds start here: the evidence of phase 2 is not phase 1's.
    expect(h.context.phaseStart).toBe(2);
    expect(h.eventsOf('scs.supervisor.phase_started').map((e) => [e.phase, e.plan.phase_goal])).toEqual([
      [1, PLANS.summarise.phase_goal],
      [2, PLANS.inspect.phase_goal],
    ]);
    expect(h.eventTypes().slice(-4)).toEqual(['scs.student.phase_accepted', 'scs.committee.plan_drafted', 'scs.student.plan_approved', 'scs.supervisor.phase_started']);
  });

  it('accept_phase with supervisor_continue keeps the phase; with finish it requires the finish next', async () => {
    const h = await start({ settings: { monitor_every: 1 } });
    await approved(h);
    await h.round(okFact(0));
    await h.answer('monitor', monitorAnswer('accept_phase', { next_required_action: 'supervisor_continue' }));
    expect(h.value).toBe('executing');
    expect(h.context.phase).toBe(1);
    expect(h.context.required).toBeUndefined();
    await h.round(okFact(1));
    await h.answer('monitor', monitorAnswer('accept_phase', { next_required_action: 'finish' }));
    expect(h.value).toBe('executing');
    expect(h.context.required).toMatchObject({ kind: 'finish' });
    expect(h.calls('committee')).toHaveLength(1);
  });

  it('the phases are bounded: an accepted last phase blocks with "no phases left", never a silent accept', async () => {
    const h = await start({ settings: { monitor_every: 1, max_phases: 2 } });
    await approved(h);
    await h.round(okFact(0));
    await h.answer('monitor', monitorAnswer('accept_phase'));
    await approved(h, PLANS.inspect);
    await h.round(okFact(1));
    await h.answer('monitor', monitorAnswer('accept_phase'));
    expect(h.value).toBe('blocked');
    expect(h.context.blockedReasons).toEqual([monitorAnswer('accept_phase').reason, 'no phases left (max_phases 2)']);
    expect(h.eventTypes().at(-1)).toBe('scs.supervisor.phase_blocked');
  });
});

describe('stop conditions', () => {
  it('a result that matches a stop condition stops the phase with its evidence and the changed files, and the monitor reviews it', async () => {
    const h = await start({ settings: { monitor_every: 10, loop_guard: 5 } });
    await approved(h);
    await h.round(failedFact(0, 'write_file {"path":"/etc/summary.md"}', { failed: false, outcome: 'executed', result: 'ok' }));
    await h.round(stoppingFact(1));

    expect(h.value).toBe('monitoring');
    expect(h.calls('monitor').at(-1)).toMatchObject({ trigger: 'stop_condition', phase: 1 });
    const [stopped] = h.eventsOf('scs.supervisor.phase_stopped');
    expect(stopped).toEqual({
      type: 'scs.supervisor.phase_stopped',
      phase: 1,
      round: 1,
      condition: 'notes.md is missing ("ENOENT")',
      matched: 'the result of round 2 contains "ENOENT"',
      evidence: ['run-test-1:000010'],
      changed_files: [{ round: 0, tool: 'write_file', target: '/etc/summary.md', result: 'error: EACCES', ok: false }],
    });
    // The stop is the evidence for a replan.
    await h.answer('monitor', monitorAnswer('rethink_plan', { reason: 'the notes are missing: plan around it' }));
    expect(h.calls('committee').at(-1)).toMatchObject({ phase: 2, feedback: ['the notes are missing: plan around it'] });
  });

  it('a round that matches no stop condition does not stop the phase', async () => {
    const h = await start({ settings: { monitor_every: 10, loop_guard: 5 } });
    await approved(h);
    await h.round(failedFact(0));
    expect(h.calls('monitor').at(-1)?.trigger).toBe('tool_failure');
    expect(h.eventsOf('scs.supervisor.phase_stopped')).toEqual([]);
  });
});

describe('next_required_action', () => {
  it('a phase brief that names a first tool requires it; a refused finish requires more work', async () => {
    const h = await start({ settings: { monitor_every: 10 } });
    await approved(h, { ...PLANS.summarise, next_required_action: 'read_file' });
    expect(h.context.required).toEqual({ kind: 'tool', tool: 'read_file', why: "the phase 1 brief's next_required_action is to call read_file first" });
    await h.round(okFact(0));
    expect(h.context.required).toBeUndefined();
    await h.finish(1);
    await h.answer('monitor', monitorAnswer('finish_rejected'));
    expect(h.context.required).toMatchObject({ kind: 'execute' });
  });
});
