import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { RecentRuns } from './RecentRuns';
import type { RunRow } from '../../db/db';

function row(run_id: string, over: Partial<RunRow>): RunRow {
  return { run_id, workflow_id: 'notes', spec_name: 'Notes', status: 'completed', started_at: '2026-01-05T09:00:00.000Z', rounds: 2, models: { student: 'replay', teacher: 'replay' }, supervision_enabled: true, stored_events: 10, ...over };
}

describe('a workflow page’s Recent runs', () => {
  it('say unsupervised like the Runs list, and name a supervised run’s phase as the lifecycle phase', () => {
    const html = renderToStaticMarkup(<RecentRuns runs={[row('run-off', { supervision_enabled: false, phase: 3 }), row('run-on', { phase: 2, dry_run: true })]} />);
    const [off, on] = html.split('</li>');
    expect(off).toContain(' · unsupervised');
    expect(off).not.toContain('phase');
    expect(on).toContain(' · dry run');
    expect(on).toContain(' · lifecycle phase 2');
    expect(on).not.toContain('unsupervised');
  });

  it('says so while loading and when the workflow has not run yet', () => {
    expect(renderToStaticMarkup(<RecentRuns runs={undefined} />)).toContain('Loading…');
    expect(renderToStaticMarkup(<RecentRuns runs={[]} />)).toContain('No runs yet.');
  });
});
