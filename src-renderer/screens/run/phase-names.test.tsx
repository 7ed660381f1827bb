import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { HostProvider } from '../../app/HostProvider';
import { createHostClient } from '../../host/host-client';
import { StewardDb, type RunRow } from '../../db/db';
import { FakeTransport } from '../../testing/fake-transport';
import { RunHeader } from '../RunScreen';
import { ScsTimelineView } from '../scs/ScsTimeline';
import { deriveRunFacts } from '../../db/run-facts';
import { deriveScsTimeline, evidenceIndex } from '../../db/derive-scs';
import { summaryRegressionRun } from '../../testing/scs-fixtures';

/** The top of an SCS run's page as it first paints: its header (with the SCS status) and the SCS timeline's head. */
function paint(): { header: string; timeline: string } {
  const { events, runId } = summaryRegressionRun();
  const run: RunRow = { run_id: runId, workflow_id: 'notes-cleanup', spec_name: 'Tidy the notes folder', status: 'completed', started_at: events[0]?.ts ?? '', rounds: 3, models: { student: 'replay', teacher: 'replay' }, supervision_enabled: true, phase: 3, stored_events: events.length };
  const scs = deriveScsTimeline(events);
  const client = createHostClient(new FakeTransport());
  const db = new StewardDb(`steward-phase-names-${Math.random().toString(36).slice(2)}`);
  const inHost = (node: React.ReactNode) => renderToStaticMarkup(<HostProvider client={client} db={db} tokenMissing={false}>{node}</HostProvider>);
  const nav = { runId, evidence: evidenceIndex(events), goToRound: () => undefined, goToEntry: () => undefined };
  return { header: inHost(<RunHeader run={run} facts={deriveRunFacts(events)} scs={scs} />), timeline: inHost(<ScsTimelineView timeline={scs} nav={nav} live={false} />) };
}

/** What a person reads: tags dropped, machine-format `code` (the seed's `scs=on … phase=1` line) left out. */
const prose = (html: string) => html.replace(/<code[^>]*>.*?<\/code>/g, ' ').replace(/<[^>]+>/g, ' ');

describe('an SCS run’s page never calls its lifecycle phase and its SCS phase both just “phase”', () => {
  it('the header says Lifecycle phase; the SCS timeline’s current phase says SCS phase', () => {
    const { header, timeline } = paint();
    expect(header).toContain('<dt>Lifecycle phase</dt>');
    expect(header).toMatch(/data-testid="run-phase" data-phase="3">3 · Risk-gated</);
    expect(timeline).toMatch(/<span class="chip chip--accent">SCS phase \d+<\/span>/);
    for (const text of [prose(header), prose(timeline.slice(0, timeline.indexOf('</header>')))]) {
      const bare = [...text.matchAll(/(\S+)\s+phase\b/gi)].filter((m) => !/^(lifecycle|scs)$/i.test(m[1] ?? ''));
      expect(bare.map((m) => m[0])).toEqual([]);
    }
  });
});
