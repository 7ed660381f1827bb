import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { TraceList } from '../TraceList';
import { summaryRegressionRun } from '../../testing/scs-fixtures';
import { threeRoundRun } from './trace-fixtures';

// The first paint (no viewport measured, no effects): what a person sees before scrolling. Keyboard moves are
// treeMove's (trace-tree.test.ts); e2e/runs-scale.spec.ts drives them in a browser.
const count = (html: string, needle: string) => html.split(needle).length - 1;

const agentRun = () => threeRoundRun('trace-view-01');

describe('the Trace tab', () => {
  it('is a tree: run-level events at level 1, each round a collapsible span at level 1 holding its events at level 2 and its steps', () => {
    const log = agentRun();
    const html = renderToStaticMarkup(<TraceList events={log.events} />);
    expect(html).toContain('role="tree"');
    expect(count(html, 'role="treeitem"')).toBeGreaterThan(log.events.length);
    // Every event is a row of its own (the e2e counts them), no JSON until one is opened.
    expect(count(html, 'data-testid="trace-event"')).toBe(log.events.length);
    expect(count(html, '<pre')).toBe(0);
    // Each row is named by the words it shows, in their order (its duration, its time on the run's axis).
    expect(html).toMatch(/aria-level="1"[^>]*aria-expanded="true"[^>]*aria-label="Round 1, executed, 10 events, [\d.]+ m?s"/);
    expect(html).toMatch(/aria-level="2"[^>]*aria-label="#2 round.started, \+[\d.]+ m?s"/);
    // A step of two events is a span of its own, one level down.
    expect(html).toMatch(/aria-level="3"[^>]*aria-label="#4 candidate.validated, \+[\d.]+ m?s"/);
    // Only one row is in the tab order (roving tabindex).
    expect(count(html, 'tabindex="0"')).toBe(1);
  });

  it("an opened event of a round shows its JSON as an exported trace holds it: its `round` is the number the tab's span shows", () => {
    const log = agentRun();
    const started = log.events.find((e) => e.type === 'round.started' && e.round === 1);
    if (!started) throw new Error('no second round');
    const html = renderToStaticMarkup(<TraceList events={log.events} focusSeq={started.seq} />);
    expect(html).toContain('&quot;trace_format&quot;: 2');
    expect(html).toContain('&quot;round&quot;: 2');
    expect(html).not.toContain('&quot;round&quot;: 1');
    expect(html).toMatch(/aria-label="Round 2, /);
  });

  it('draws each span and event against the run’s time axis, and a model call shows its latency and tokens', () => {
    const log = agentRun();
    const events = log.events.map((e) => (e.type === 'verdict.received' && e.round === 1 ? { ...e, attempt: { ...e.attempt, reply: { ...e.attempt.reply!, latency_ms: 2_500, usage: { input_tokens: 1_234, output_tokens: 56 } } } } : e));
    const html = renderToStaticMarkup(<TraceList events={events} />);
    expect(count(html, 'class="trace__track"')).toBe(count(html, 'role="treeitem"'));
    expect(html).toContain('1,234 in / 56 out tokens · 2.5 s model time');
    // The verdict's bar starts 2.5 s before it was recorded: its own time, not an instant.
    const verdict = events.find((e) => e.type === 'verdict.received' && e.round === 1)!;
    const start = (Date.parse(verdict.ts) - 2_500 - Date.parse(events[0]!.ts)) / (Date.parse(events.at(-1)!.ts) - Date.parse(events[0]!.ts));
    expect(html).toContain(`left:${start * 100}%`);
    // The round holding it sums its calls.
    expect(html).toMatch(/data-testid="trace-span"[^]*?Round 2[^]*?1,234 in \/ 56 out tokens/);
  });

  it('a cited event is open with its JSON; the SCS phase holding it is a span', () => {
    const log = summaryRegressionRun();
    const cited = log.events.find((e) => e.type === 'scs.student.plan_approved')!;
    const html = renderToStaticMarkup(<TraceList events={log.events} focusSeq={cited.seq} />);
    expect(count(html, '<pre')).toBe(1);
    expect(html).toContain('Reads before writing');
    expect(html).toContain(`data-seq="${cited.seq}" data-layer="phase" open=""`);
    expect(html).toMatch(/aria-label="Phase 1, Write summary.md from the meeting notes, \d+ events, [^"]+"/);
    // The opened event is named by its content (the JSON it shows), not by a shorter label.
    const openRow = /<li[^>]*>(?=<details[^>]*open="")/.exec(html)?.[0] ?? '';
    expect(openRow).toContain('role="treeitem"');
    expect(openRow).not.toContain('aria-label');
  });

  it('offers a filter chip per layer and per event type present, with their counts', () => {
    const log = agentRun();
    const html = renderToStaticMarkup(<TraceList events={log.events} />);
    expect(count(html, 'data-testid="trace-filter-layer"')).toBe(8);
    expect(count(html, 'data-testid="trace-filter-type"')).toBe(new Set(log.events.map((e) => e.type)).size);
    expect(html).toMatch(/Verdict <span class="trace-chip__count">3<\/span>/);
  });
});
