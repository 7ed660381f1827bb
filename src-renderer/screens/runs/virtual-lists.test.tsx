import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { TraceList } from '../TraceList';
import { RunsTable } from './RunsTable';
import { syntheticRuns } from './synthetic-runs';
import { blockedRound, eventLog, readExecutedRound, startRun } from '../../testing/event-fixtures';

// No DOM here: the server render is the virtual lists' first frame (no viewport measured yet). The e2e
// (e2e/runs-scale.spec.ts) counts rows in a real browser, scrolled.
const count = (html: string, needle: string) => html.split(needle).length - 1;
const noSelection = { selected: new Set<string>(), toggle: () => undefined, toggleAll: () => undefined };

describe('virtual lists', () => {
  it('a runs list of 10,000 runs puts fewer than 200 rows in the page', () => {
    const html = renderToString(<RunsTable runs={syntheticRuns(10_000)} onNearEnd={() => undefined} selection={noSelection} />);
    const rows = count(html, 'data-testid="run-row"');
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThan(200);
  });

  it('each rendered run has a labelled checkbox, checked when it is selected; the header box is checked only when every listed run is', () => {
    const runs = syntheticRuns(3);
    const one = renderToString(<RunsTable runs={runs} onNearEnd={() => undefined} selection={{ ...noSelection, selected: new Set([runs[1]!.run_id]) }} />);
    expect(count(one, 'data-testid="select-run"')).toBe(3);
    expect(count(one, 'checked=""')).toBe(1);
    expect(one).toContain(`aria-label="Select the run of ${runs[1]!.spec_name}`);
    const all = renderToString(<RunsTable runs={runs} onNearEnd={() => undefined} selection={{ ...noSelection, selected: new Set(runs.map((r) => r.run_id)) }} />);
    expect(count(all, 'checked=""')).toBe(4);
  });

  it('a trace of 2,000+ events puts fewer than 200 events in the page, and JSON only for the opened one', () => {
    const log = eventLog('long-run');
    startRun(log);
    for (let round = 0; log.events.length < 2080; round++) (round % 2 ? blockedRound : readExecutedRound)(log, round);
    const cited = log.events[7]!;
    const html = renderToString(<TraceList events={log.events} focusSeq={cited.seq} />);
    const rows = count(html, 'data-testid="trace-event"');
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThan(200);
    expect(count(html, '<pre')).toBe(1);
    expect(html).toContain(`"id": "${cited.id}"`.replace(/"/g, '&quot;'));
  });
});
