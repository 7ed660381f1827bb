import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { RunEvent } from '@shared/contracts/events';
import { ToolProgressBars } from './ToolProgressBars';
import { toolsInFlight } from './tool-progress';

const RUN = 'run-progress-1';
let seq = 0;
const envelope = () => ({ id: `${RUN}:${++seq}`, run_id: RUN, seq, ts: new Date(1_700_000_000_000 + seq).toISOString() });
const progress = (key: string, value: number, extra: { total?: number; message?: string; invocation_id?: string } = {}): RunEvent => ({
  type: 'tool.progress',
  ...envelope(),
  round: 1,
  server: 'ev',
  tool: 'slow',
  idempotency_key: key,
  progress: value,
  ...extra,
});
const executed = (key: string): RunEvent => ({
  type: 'tool.executed',
  ...envelope(),
  round: 1,
  execution: { server: 'ev', tool: 'slow', arguments: {}, idempotency_key: key, ok: true, is_error: false, content: 'done', duration_ms: 5 },
});

describe('tool calls in flight', () => {
  it('keeps the latest report of a call until its result is in', () => {
    const events = [progress('k1', 1, { total: 4 }), progress('k1', 2, { total: 4 })];
    expect(toolsInFlight(events).map((p) => p.progress)).toEqual([2]);
    expect(toolsInFlight([...events, executed('k1')])).toEqual([]);
  });

  it('drops a call whose node ended without a result of its own (a call that failed outright)', () => {
    const events: RunEvent[] = [
      progress('k2', 3, { invocation_id: 'fetch#0' }),
      progress('k3', 1, { invocation_id: 'other#0' }),
      { type: 'node.invocation', ...envelope(), invocation_id: 'fetch#0', node: 'fetch', lineage: [], status: 'failed' } as RunEvent,
    ];
    expect(toolsInFlight(events).map((p) => p.idempotency_key)).toEqual(['k3']);
  });

  it('shows a determinate bar with its value when the total is known, an indeterminate one with the message when not', () => {
    const html = renderToStaticMarkup(<ToolProgressBars events={[progress('a', 3, { total: 12 }), progress('b', 7, { message: 'scanning table 3' })]} />);
    expect(html).toContain('role="progressbar"');
    expect(html).toContain('aria-valuenow="25"');
    expect(html).toContain('3 of 12 (25%)');
    expect(html.match(/aria-valuenow/g)).toHaveLength(1);
    expect(html).toContain('tool-progress__track--indeterminate');
    expect(html).toContain('7 done — scanning table 3');
  });

  it('renders nothing once no call is in flight', () => {
    expect(renderToStaticMarkup(<ToolProgressBars events={[progress('a', 1, { total: 2 }), executed('a')]} />)).toBe('');
  });
});
