import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { HostProvider } from '../../app/HostProvider';
import { createHostClient } from '../../host/host-client';
import { StewardDb } from '../../db/db';
import { FakeTransport } from '../../testing/fake-transport';
import { deriveScsTimeline, evidenceIndex } from '../../db/derive-scs';
import { eventLog, startRun } from '../../testing/event-fixtures';
import { SUMMARY_PLAN, snapshot } from '../../testing/scs-fixtures';
import { ScsTimelineView } from './ScsTimeline';

const READ_FIRST = { ...SUMMARY_PLAN, phase_goal: 'Read every note first', allowed_tools: ['read_text_file'] };
const WRITE_NOW = { ...SUMMARY_PLAN, phase_goal: 'Write summary.md straight away' };
const EDIT = { plan: ['Read the meeting notes', 'List the action items', 'Write summary.md with them'] };

/** Alternatives as the host emits them (src-main/scs/scs-alternatives-run.test.ts): one vetoed draft, then a choice with an edit. */
function alternativesRun() {
  const log = eventLog('run-scs-0004');
  startRun(log);
  snapshot(log, 0);
  log.add({ type: 'scs.enabled', mode: 'on', active: true, reason: 'SCS is on', model: 'replay' });
  log.add({ type: 'scs.committee.plan_drafted', phase: 1, attempt: 1, plan: READ_FIRST, alternatives: [READ_FIRST, WRITE_NOW] });
  log.add({ type: 'scs.student.plan_vetoed', phase: 1, trigger: 'plan', decision: { decision: 'veto_plan', confidence: 0.7, evidence: [], reason: 'Neither plan checks the action items.' }, budget: 8, alternatives: 2 });
  log.add({ type: 'scs.committee.plan_drafted', phase: 1, attempt: 2, plan: READ_FIRST, alternatives: [READ_FIRST, WRITE_NOW] });
  log.add({ type: 'scs.warning', message: "The student's approval was refused: the student's edit of plan 2 is not a valid plan (plan needs at least 3 entries). The student is asked again." });
  log.add({ type: 'scs.student.plan_approved', phase: 1, trigger: 'plan', decision: { decision: 'approve_plan', confidence: 0.8, evidence: [], reason: 'Plan 2, with the action items listed.', choice: 2, edit: EDIT }, budget: 8, alternatives: 2 });
  log.add({ type: 'scs.supervisor.phase_started', phase: 1, plan: { ...WRITE_NOW, ...EDIT } });
  return log;
}

describe('the run view shows the committee\'s alternative plans and the student\'s choice', () => {
  it('each alternative numbered, the veto of all, the refused edit in words, and the chosen, edited plan', () => {
    const { events, runId } = alternativesRun();
    const timeline = deriveScsTimeline(events);
    const drafted = timeline.entries.find((e) => e.kind === 'plan_drafted');
    expect(drafted?.kind === 'plan_drafted' && drafted.alternatives?.map((p) => p.phase_goal)).toEqual(['Read every note first', 'Write summary.md straight away']);
    const nav = { runId, evidence: evidenceIndex(events), goToRound: () => undefined, goToEntry: () => undefined };
    const db = new StewardDb(`steward-scs-alternatives-${Math.random().toString(36).slice(2)}`);
    const html = renderToStaticMarkup(
      <HostProvider client={createHostClient(new FakeTransport())} db={db} tokenMissing={false}>
        <ScsTimelineView timeline={timeline} nav={nav} live={false} />
      </HostProvider>,
    );
    expect(html).toContain('Drafted 2 alternative plans for phase 1');
    expect(html.match(/data-testid="scs-alternative" aria-label="Plan \d"/g)).toHaveLength(4);
    expect(html).toMatch(/Plan 2<\/span>.*Write summary\.md straight away/);
    expect(html).toContain('Vetoed all 2 plans');
    expect(html).toContain('the student&#x27;s edit of plan 2 is not a valid plan');
    expect(html).toContain('Chose plan 2 of 2 and edited it');
    expect(html).toMatch(/data-testid="scs-choice">Edited: plan</);
    expect(html).toContain('Started phase 1');
  });
});
