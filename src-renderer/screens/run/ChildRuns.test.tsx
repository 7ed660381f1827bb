import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { RunEvent } from '@shared/contracts/events';
import { ChildRuns } from './ChildRuns';

const PARENT = 'parent-run-0001';
let seq = 0;
const ev = (payload: Record<string, unknown>): RunEvent => {
  const n = seq++;
  return RunEvent.parse({ ...payload, invocation_id: 'slow', id: `${PARENT}:${String(n).padStart(6, '0')}`, run_id: PARENT, seq: n, ts: '2026-12-07T19:00:00.000Z' });
};

describe('ChildRuns', () => {
  it('a child run a host stop cut off is listed as interrupted, in words, and its new start under it with its own link', () => {
    const first = `${PARENT}:slow`;
    const events = [
      ev({ type: 'subworkflow.started', workflow_id: 'slow-thought', workflow_name: 'Slow thought', child_run_id: first }),
      ev({ type: 'subworkflow.finished', workflow_id: 'slow-thought', child_run_id: first, status: 'interrupted', message: 'The host stopped while this run went on, and it was closed as interrupted. The node that started it started again; a tool call already made is not made again.', interventions: [] }),
      ev({ type: 'subworkflow.started', workflow_id: 'slow-thought', workflow_name: 'Slow thought', child_run_id: `${first}~2` }),
      ev({ type: 'subworkflow.finished', workflow_id: 'slow-thought', child_run_id: `${first}~2`, status: 'completed', interventions: [] }),
    ];
    const html = renderToStaticMarkup(<ChildRuns events={events} invocationId="slow" />);
    expect(html).toContain('Workflow runs');
    const rows = html.split('data-testid="node-child-run"').slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain(`data-child-run-id="${first}"`);
    expect(rows[0]).toContain('Interrupted');
    expect(rows[0]).toContain('The node that started it started again');
    expect(rows[1]).toContain(`data-child-run-id="${first}~2"`);
    expect(rows[1]).toContain('Completed');
    expect(rows[1]).not.toContain('started again');
    expect(html).toContain(encodeURIComponent(`${first}~2`));
  });
});
