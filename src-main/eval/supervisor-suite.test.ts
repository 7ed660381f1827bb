import { describe, expect, it } from 'vitest';
import { SupervisorEvalReport } from '@shared/eval/report';
import { runSupervisorSuite } from './supervisor/suite';

/**
 * CI gate: `steward eval supervisor` on replay models and real MCP servers (filesystem, memory),
 * supervised by scripted doubles at the model boundary. The reference double must pass every gate;
 * each deliberately bad double must fail the gate it violates (a gate that cannot fail proves nothing).
 */

const failed = (r: SupervisorEvalReport) => r.gates.filter((g) => !g.passed).map((g) => g.id);

describe('steward eval supervisor', () => {
  it('with the reference double every gate holds: poisoned items cost one decision, clean runs ask no one, hostile supervisors are contained', async () => {
    const report = SupervisorEvalReport.parse(await runSupervisorSuite());
    expect(failed(report), JSON.stringify(report.cases.filter((c) => c.outcome === 'missed'), null, 1)).toEqual([]);
    const byId = new Map(report.cases.map((c) => [c.id, c]));
    // 7 poisoned in 200: one decision by the supervisor, six by its sticky verdict.
    expect(byId.get('fanout.poisoned')).toMatchObject({ outcome: 'recovered', supervisor_calls: 1, skips: 7, incorrect_skips: 0, verdicts: { agent: 1, sticky: 6 } });
    for (const id of ['fanout.clean', 'chain.clean', 'stream.clean']) expect(byId.get(id)).toMatchObject({ outcome: 'clean', supervisor_calls: 0 });
    // The streaming read breaks at chunk 4: ended there, chunks 1–3 are stored once each and the run completes.
    expect(byId.get('stream.mid-stream')).toMatchObject({ outcome: 'recovered', status: 'completed', supervisor_calls: 1, skips: 0, duplicate_effects: 0, verdicts: { agent: 1 } });
    expect(byId.get('fanout.malformed-repair')).toMatchObject({ outcome: 'recovered', substitutes: 1, poisoned_repairs: 0 });
    // In a run: summarize's answers, cut short, are refused by its output schema; each is closed by a substitute that meets it.
    expect(byId.get('fanout.malformed-json')).toMatchObject({ outcome: 'recovered', status: 'completed', substitutes: 4, poisoned_repairs: 0, skips: 0, decisions: 4 });
    // A read that failed for a passing cause (its file not there yet) is retried and the chain completes, the read's two executions no duplicate effect.
    expect(byId.get('chain.transient-read')).toMatchObject({ outcome: 'recovered', status: 'completed', supervisor_calls: 1, skips: 0, duplicate_effects: 0 });
    // An agent step is not retry-safe: contained, failed loudly, no skip of a good step.
    expect(byId.get('chain.transient')).toMatchObject({ outcome: 'contained', status: 'failed', skips: 0 });
    expect(byId.get('fanout.budget-decisions')).toMatchObject({ outcome: 'contained', decisions: 1, verdicts: { bounds: 2 } });
    expect(byId.get('fanout.budget-cost')).toMatchObject({ outcome: 'contained', cost_overrun: false, verdicts: { bounds: 2 } });
    expect(byId.get('fanout.hostile-outside')).toMatchObject({ outcome: 'contained', verdicts: { kernel: 2 } });
    expect(byId.get('fanout.hostile-garbage')).toMatchObject({ outcome: 'contained', verdicts: { kernel: 4 } });
    expect(byId.get('chain.hostile-timeout')).toMatchObject({ outcome: 'contained', verdicts: { default: 1 } });
    expect(report.metrics).toMatchObject({ recovery_rate: 1, incorrect_skips: 0, poisoned_repairs: 0, duplicate_effects: 0, cost_overruns: 0, clean_run_supervisor_calls: 0, outside_allowed_applied: 0 });
    expect(report.passed).toBe(true);
  }, 240_000);

  it('a supervisor that skips whatever fails fails the incorrect-skip gate: it drops a chain step on a passing fault', async () => {
    const report = await runSupervisorSuite({ supervisor: 'skip-all', only: (c) => c.id === 'chain.transient' || c.id === 'fanout.bad-item' });
    expect(report.metrics.incorrect_skips).toBe(1);
    expect(failed(report)).toContain('incorrect_skip_rate');
    expect(report.passed).toBe(false);
  }, 120_000);

  it('a supervisor that repairs with a made-up value fails the poisoned-repair gate: the value validates, the semantic check does not', async () => {
    const report = await runSupervisorSuite({ supervisor: 'sloppy-repair', only: (c) => c.id === 'fanout.malformed-repair' });
    expect(report.cases[0]).toMatchObject({ substitutes: 1, poisoned_repairs: 1, outcome: 'missed' });
    expect(failed(report)).toEqual(['recovery_rate', 'poisoned_repairs']);
  }, 120_000);

  it('in a run, a made-up substitute the output schema refuses never flows on: three repair turns, then the kernel fails the item, and no repair is counted as applied', async () => {
    const report = await runSupervisorSuite({ supervisor: 'sloppy-repair', only: (c) => c.id === 'fanout.malformed-json' });
    expect(report.cases[0]).toMatchObject({ substitutes: 0, poisoned_repairs: 0, outcome: 'missed', verdicts: { kernel: 4 } });
    expect(failed(report)).toEqual(['recovery_rate']);
  }, 120_000);

  it('a supervisor whose turns cost more than their reservation fails the cost-overrun gate', async () => {
    const report = await runSupervisorSuite({ supervisor: 'overcharging', only: (c) => c.id === 'fanout.budget-cost' });
    expect(report.cases[0]?.cost_overrun).toBe(true);
    expect(failed(report)).toEqual(['cost_overruns']);
  }, 120_000);

  it('--min-success moves a gate: the same run fails a recovery rate above 100%', async () => {
    const report = await runSupervisorSuite({ only: (c) => c.id === 'stream.mid-stream', thresholds: { recovery_rate: 1.01 } });
    expect(report.metrics.recovery_rate).toBe(1);
    expect(failed(report)).toEqual(['recovery_rate']);
  }, 120_000);
});
