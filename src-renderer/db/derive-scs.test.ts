import { describe, expect, it } from 'vitest';
import { deriveScsTimeline, evidenceIndex, scsStatusLine, type ScsEntry } from './derive-scs';
import { deriveRounds } from './derive-rounds';
import { eventLog, finishRun, readExecutedRound, startRun } from '../testing/event-fixtures';
import { FINISH_REFUSED, SUMMARY_PLAN, committeeDrafts, failedReadRound, finishRound, monitorDecides, phaseStops, scsStart, snapshot, summaryRegressionRun } from '../testing/scs-fixtures';

const kinds = (entries: readonly ScsEntry[]) => entries.map((e) => e.kind);

describe('deriveScsTimeline', () => {
  it("reads the seed's regression case in order: plan drafted, approved, phase 1 started, accepted after the failed read, finish refused, finish allowed", () => {
    const timeline = deriveScsTimeline(summaryRegressionRun().events);
    expect(kinds(timeline.entries)).toEqual(['enabled', 'plan_drafted', 'plan_approved', 'phase_started', 'phase_accepted', 'finish_rejected', 'finish_allowed']);
    expect(timeline.entries.map((e) => e.actor)).toEqual(['scs', 'committee', 'monitor', 'executor', 'monitor', 'monitor', 'monitor']);
    expect(timeline).toMatchObject({ active: true, phase: 1, decision: 'finish_allowed', enabled: { mode: 'on', active: true, reason: 'SCS is on', model: 'replay' } });
    expect(timeline.blocked).toBeUndefined();
    expect(timeline.awaiting).toBeUndefined();
    const drafted = timeline.entries[1];
    expect(drafted?.kind === 'plan_drafted' && drafted.plan?.allowed_tools).toEqual(['read_text_file', 'write_file']);
  });

  it('places each gate among the rounds: the plan gate before the first round, a review after the round it reviewed, the finish gate inside the round it ruled on', () => {
    const timeline = deriveScsTimeline(summaryRegressionRun().events);
    expect(timeline.entries.map((e) => e.placement)).toEqual([
      { at: 'before_rounds' },
      { at: 'before_rounds' },
      { at: 'before_rounds' },
      { at: 'before_rounds' },
      { at: 'after', round: 0 },
      { at: 'during', round: 1 },
      { at: 'during', round: 3 },
    ]);
  });

  it('gives each committee and monitor entry exactly the transcript that produced it, and the supervisor none', () => {
    const log = summaryRegressionRun();
    const timeline = deriveScsTimeline(log.events);
    const transcripts = log.events.filter((e) => e.type === 'scs.transcript');
    expect(transcripts).toHaveLength(5);
    const withTranscript = timeline.entries.filter((e) => e.transcript);
    expect(withTranscript.map((e) => e.kind)).toEqual(['plan_drafted', 'plan_approved', 'phase_accepted', 'finish_rejected', 'finish_allowed']);
    expect(withTranscript.map((e) => e.transcript?.id)).toEqual(transcripts.map((t) => t.id));
    // Each transcript sits right before its entry, and it is the conversation of that role and trigger.
    for (const entry of withTranscript) {
      const t = log.events.find((e) => e.id === entry.transcript?.id);
      expect(t?.seq).toBe(entry.seq - 1);
      expect(entry.transcript?.role).toBe(entry.actor);
      if (entry.kind === 'finish_rejected') expect(entry.transcript).toMatchObject({ trigger: 'finish', reply: JSON.stringify(FINISH_REFUSED) });
    }
    expect(timeline.entries.find((e) => e.kind === 'phase_started')?.transcript).toBeUndefined();
  });

  it("maps a round the finish gate blocked to the monitor's refusal and its reason, and the delivered finish to the allowance", () => {
    const events = summaryRegressionRun().events;
    const timeline = deriveScsTimeline(events);
    const refused = deriveRounds(events).find((r) => r.reason === 'finish_rejected');
    expect(refused).toMatchObject({ round: 1, outcome: 'blocked', rejection: 'finish_refused' });
    expect(timeline.finishGates.get(1)).toMatchObject({ kind: 'finish_rejected', decision: { reason: FINISH_REFUSED.reason, confidence: 0.9 } });
    expect(timeline.finishGates.get(3)?.kind).toBe('finish_allowed');
    expect([...timeline.finishGates.keys()].sort()).toEqual([1, 3]);
  });

  it('is the same timeline when the host replays events, duplicated and out of order', () => {
    const events = summaryRegressionRun().events;
    const replayed = [...events.slice(20), ...events, ...events.slice(0, 30)].reverse();
    expect(deriveScsTimeline(replayed)).toEqual(deriveScsTimeline(events));
  });

  it('shows a veto, the redraft it asked for, and the approval; while live it says who is being waited for', () => {
    const log = eventLog('run-scs-veto');
    startRun(log);
    snapshot(log, 0);
    log.add({ type: 'scs.enabled', mode: 'auto', active: true, reason: 'auto: protected tools offered (write_file)', model: 'replay' });
    expect(deriveScsTimeline(log.events).awaiting).toBe('committee');
    committeeDrafts(log, 1, 1, null);
    expect(deriveScsTimeline(log.events).awaiting).toBe('committee');
    committeeDrafts(log, 1, 2);
    expect(deriveScsTimeline(log.events).awaiting).toBe('monitor');
    monitorDecides(log, 1, 'plan', { decision: 'veto_plan', confidence: 0.6, evidence: [], reason: 'Writes before reading.' });
    expect(deriveScsTimeline(log.events).awaiting).toBe('committee');
    committeeDrafts(log, 1, 3);
    monitorDecides(log, 1, 'plan', { decision: 'approve_plan', confidence: 0.8, evidence: [], reason: 'Now reads first.' });
    log.add({ type: 'scs.supervisor.phase_started', phase: 1, plan: committeePlan(log) });
    expect(deriveScsTimeline(log.events).awaiting).toBeUndefined();

    failedReadRound(log, 0, { snapshot: false });
    expect(deriveScsTimeline(log.events).awaiting).toBe('monitor');
    monitorDecides(log, 1, 'tool_failure', { decision: 'accept_phase', confidence: 0.7, evidence: [], reason: 'Continue.', next_required_action: 'supervisor_continue' });
    expect(deriveScsTimeline(log.events).awaiting).toBeUndefined();
    finishRound(log, 1, 'stop_before_ruling');
    expect(deriveScsTimeline(log.events).awaiting).toBe('monitor');

    const timeline = deriveScsTimeline(log.events);
    const drafts = timeline.entries.filter((e) => e.kind === 'plan_drafted');
    expect(drafts.map((d) => (d.kind === 'plan_drafted' ? [d.attempt, d.plan !== undefined, d.error !== undefined] : []))).toEqual([
      [1, false, true],
      [2, true, false],
      [3, true, false],
    ]);
    expect(kinds(timeline.entries)).toEqual(['enabled', 'plan_drafted', 'plan_drafted', 'plan_vetoed', 'plan_drafted', 'plan_approved', 'phase_started', 'phase_accepted']);
    expect(scsStatusLine(timeline)).toBe('scs=on model=replay phase=1 decision=accept_phase');
  });

  it('gives the transcript of an unusable monitor reply to the blocked state it led to (write work fails closed)', () => {
    const log = eventLog('run-scs-blocked');
    startRun(log);
    snapshot(log, 0);
    log.add({ type: 'scs.enabled', mode: 'on', active: true, reason: 'SCS is on', model: 'replay' });
    committeeDrafts(log, 1, 1);
    log.add({ type: 'scs.transcript', role: 'monitor', phase: 1, trigger: 'plan', messages: [{ role: 'user', content: 'plan?' }], reply: 'looks good to me' });
    log.add({ type: 'scs.supervisor.phase_blocked', phase: 1, reasons: ['the monitor failed: not a decision; write work fails closed'] });
    finishRun(log, 'blocked', 0);
    const timeline = deriveScsTimeline(log.events);
    expect(kinds(timeline.entries)).toEqual(['enabled', 'plan_drafted', 'phase_blocked']);
    expect(timeline.entries.at(-1)?.transcript?.reply).toBe('looks good to me');
    expect(timeline.blocked).toEqual({ phase: 1, reasons: ['the monitor failed: not a decision; write work fails closed'] });
    expect(timeline.awaiting).toBeUndefined();
    expect(scsStatusLine(timeline)).toBe('scs=on model=replay phase=0 decision=none status=blocked');
  });

  it('has nothing to show for a run without SCS, and says "SCS off" with the reason for an auto run that stayed off', () => {
    const plain = eventLog('run-no-scs');
    startRun(plain);
    readExecutedRound(plain, 0);
    finishRun(plain, 'completed', 1);
    const none = deriveScsTimeline(plain.events);
    expect(none).toMatchObject({ active: false, entries: [], enabled: undefined });
    expect(scsStatusLine(none)).toBeUndefined();

    const auto = eventLog('run-auto-off');
    startRun(auto);
    snapshot(auto, 0);
    auto.add({ type: 'scs.enabled', mode: 'auto', active: false, reason: 'auto: read-only work with a short budget, SCS stays off', model: 'replay' });
    readExecutedRound(auto, 0);
    const off = deriveScsTimeline(auto.events);
    expect(off.active).toBe(false);
    expect(off.awaiting).toBeUndefined();
    expect(scsStatusLine(off)).toBe('SCS off (auto: read-only work with a short budget, SCS stays off)');
  });

  it("resolves the monitor's evidence ids to the round they belong to; ids it made up stay unresolved", () => {
    const log = summaryRegressionRun();
    const accepted = deriveScsTimeline(log.events).entries.find((e) => e.kind === 'phase_accepted');
    const cited = accepted?.kind === 'phase_accepted' ? accepted.decision.evidence : [];
    expect(cited).toHaveLength(1);
    const index = evidenceIndex(log.events);
    expect(index.get(cited[0] ?? '')).toMatchObject({ type: 'round.completed', round: 0 });
    const allowed = deriveScsTimeline(log.events).finishGates.get(3);
    expect(allowed?.decision.evidence.map((id) => index.get(id)?.type)).toEqual(['tool.executed', undefined]);
    expect(index.get(allowed?.decision.evidence[0] ?? '')?.round).toBe(2);
  });
});

function committeePlan(log: ReturnType<typeof eventLog>) {
  const drafted = [...log.events].reverse().find((e) => e.type === 'scs.committee.plan_drafted');
  if (drafted?.type !== 'scs.committee.plan_drafted' || !drafted.plan) throw new Error('no plan drafted');
  return drafted.plan;
}

describe('rolling phases and stopped phases in the timeline', () => {
  it('a stopped phase is an executor entry with its condition, evidence and changed files, awaiting the monitor; the next phase moves the SCS phase to 2', () => {
    const log = eventLog('run-scs-0002');
    scsStart(log);
    failedReadRound(log, 0);
    const evidence = phaseStops(log, 1, 0);
    const stopped = deriveScsTimeline(log.events);
    expect(stopped.entries.at(-1)).toMatchObject({ kind: 'phase_stopped', actor: 'executor', phase: 1, condition: 'the notes are missing ("ENOENT")', evidence: [evidence], placement: { at: 'after', round: 0 } });
    expect(stopped.awaiting).toBe('monitor');

    monitorDecides(log, 1, 'stop_condition', { decision: 'accept_phase', confidence: 0.8, evidence: [evidence], reason: 'The notes are elsewhere; next milestone.' });
    expect(deriveScsTimeline(log.events).awaiting).toBe('committee');
    committeeDrafts(log, 2, 1);
    monitorDecides(log, 2, 'plan', { decision: 'approve_plan', confidence: 0.8, evidence: [], reason: 'OK.' });
    log.add({ type: 'scs.supervisor.phase_started', phase: 2, plan: SUMMARY_PLAN });
    const next = deriveScsTimeline(log.events);
    expect(next.phase).toBe(2);
    expect(kinds(next.entries).slice(-5)).toEqual(['phase_stopped', 'phase_accepted', 'plan_drafted', 'plan_approved', 'phase_started']);
  });
});
