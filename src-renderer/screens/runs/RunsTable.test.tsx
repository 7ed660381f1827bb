import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { RunsTable } from './RunsTable';
import { syntheticRuns } from './synthetic-runs';
import type { RunRow } from '../../db/db';

const noSelection = { selected: new Set<string>(), toggle: () => undefined, toggleAll: () => undefined };

/** A finished, supervised run: every column has something to say. */
function supervisedRun(): RunRow {
  const [base] = syntheticRuns(1, 3);
  if (!base) throw new Error('no synthetic run');
  return {
    ...base,
    status: 'completed',
    started_at: '2026-12-01T12:00:00.000Z',
    finished_at: '2026-12-01T12:00:04.000Z',
    stored_events: 42,
    event_count: 42,
    models: { student: 'ollama:qwen3:4b', teacher: 'replay' },
    usage: { called: { '4': ['teacher', 'replay', true] }, answered: { '5': ['teacher', 'replay', true, 1200, 300, 10] }, asks: {}, interventions: {} },
  };
}

const html = () => renderToStaticMarkup(<RunsTable runs={[supervisedRun()]} onNearEnd={() => undefined} selection={noSelection} />);

describe('the runs table on a narrow page (it folds columns instead of scrolling sideways)', () => {
  it('marks exactly the lower-priority columns as foldable, header and cell alike, and never the run, its status, rounds or checkbox', () => {
    const markup = html();
    const headers = [...markup.matchAll(/<th scope="col"( class="([^"]*)")?[^>]*>(.*?)<\/th>/g)].map((m) => ({ text: m[3]!.replace(/<[^>]+>/g, ''), cls: m[2] ?? '' }));
    const folds = (text: string) => headers.find((h) => h.text === text)?.cls;
    expect(folds('Events')).toContain('runs-col--first');
    expect(folds('Models')).toContain('runs-col--first');
    expect(folds('Took')).toContain('runs-col--first');
    expect(folds('Supervision tokens')).toContain('runs-col--first');
    expect(folds('Started')).toContain('runs-col--later');
    expect(folds('Supervision cost')).toContain('runs-col--later');
    for (const kept of ['Status', 'Workflow', 'Rounds']) expect(folds(kept) ?? '').not.toContain('runs-col');
    // Every row cell follows its header's class: ten headers, six folded cells in the row.
    expect(headers).toHaveLength(10);
    expect(markup.match(/<td class="[^"]*runs-col--(first|later)/g)).toHaveLength(6);
  });

  it("says each folded column's fact in words under the run's name, so none is lost when its column hides", () => {
    const markup = html();
    expect(markup).toContain('data-testid="run-row-folded"');
    const facts = [...markup.matchAll(/<span class="runs-fact--(first|later)">(.*?)<\/span>(?= <span class="runs-fact| <\/div>)/g)].map((m) => m[2]!.replace(/<[^>]+>/g, ''));
    // Later-folded facts (started, cost) are marked so, the rest fold first: each shows exactly when its column hides.
    expect([...markup.matchAll(/<span class="runs-fact--(first|later)">/g)].map((m) => m[1])).toEqual(['later', 'first', 'first', 'first', 'later', 'first']);
    // Apart in the text too (copied, read aloud), not only by the gap on screen.
    expect(/data-testid="run-row-folded">(.*?)<\/div>/.exec(markup)?.[1]?.replace(/<[^>]+>/g, '')).toContain('took 4.0 s 42 events models ollama:qwen3:4b / replay');
    expect(facts).toEqual([expect.stringMatching(/^Started Dec 1/), 'took 4.0 s', '42 events', 'models ollama:qwen3:4b / replay', expect.stringMatching(/^supervision cost \$/), 'supervision tokens 1,500']);
  });
});
