import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { HostProvider } from '../../app/HostProvider';
import { createHostClient } from '../../host/host-client';
import { StewardDb } from '../../db/db';
import { FakeTransport } from '../../testing/fake-transport';
import { deriveScsTimeline, evidenceIndex } from '../../db/derive-scs';
import { eventLog } from '../../testing/event-fixtures';
import { SUMMARY_PLAN, committeeDrafts, failedReadRound, monitorDecides, phaseStops, scsStart } from '../../testing/scs-fixtures';
import { ScsTimelineView } from './ScsTimeline';

/** A run whose phase 1 stopped on a stop condition after a write, was accepted, and moved on to phase 2. */
function rollingRun() {
  const log = eventLog('run-scs-0003');
  scsStart(log);
  failedReadRound(log, 0);
  const evidence = phaseStops(log, 1, 0, [{ round: 0, tool: 'write_file', target: '/notes/draft.md', result: 'ok (12 chars)', ok: true }]);
  monitorDecides(log, 1, 'stop_condition', { decision: 'accept_phase', confidence: 0.8, evidence: [evidence], reason: 'The draft is written; next milestone.' });
  committeeDrafts(log, 2, 1, { ...SUMMARY_PLAN, phase_goal: 'Write summary.md from the draft' });
  monitorDecides(log, 2, 'plan', { decision: 'approve_plan', confidence: 0.8, evidence: [], reason: 'OK.' });
  log.add({ type: 'scs.supervisor.phase_started', phase: 2, plan: { ...SUMMARY_PLAN, phase_goal: 'Write summary.md from the draft' } });
  return log;
}

describe('the run view shows SCS phase changes', () => {
  it('a stopped phase with its condition and changed files, the accepted phase moving on, and SCS phase 2 under way', () => {
    const { events, runId } = rollingRun();
    const nav = { runId, evidence: evidenceIndex(events), goToRound: () => undefined, goToEntry: () => undefined };
    const db = new StewardDb(`steward-scs-phases-${Math.random().toString(36).slice(2)}`);
    const html = renderToStaticMarkup(
      <HostProvider client={createHostClient(new FakeTransport())} db={db} tokenMissing={false}>
        <ScsTimelineView timeline={deriveScsTimeline(events)} nav={nav} live={false} />
      </HostProvider>,
    );
    expect(html).toMatch(/<span class="chip chip--accent">SCS phase 2<\/span>/);
    expect(html).toContain('data-kind="phase_stopped"');
    expect(html).toContain('Stopped phase 1 for review: a stop condition matched');
    expect(html).toContain('the result of round 1 contains &quot;ENOENT&quot;');
    expect(html).toMatch(/data-testid="scs-changed-files"><li><code>write_file<\/code> \/notes\/draft\.md/);
    expect(html).toContain('Accepted phase 1: on to the next phase');
    expect(html).toContain('Started phase 2');
  });
});
