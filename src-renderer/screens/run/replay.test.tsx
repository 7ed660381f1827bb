import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import type { RunEvent } from '@shared/contracts/events';
import { HostedWorkflow } from '@shared/contracts/hosted-workflow';
import { runDifferences, compareDecisions } from '@shared/replay/compare-runs';
import { roundDecisions } from '@shared/replay/round-decisions';
import { HostProvider } from '../../app/HostProvider';
import { createHostClient } from '../../host/host-client';
import { StewardDb } from '../../db/db';
import { workflowRow } from '../../db/seed-demo';
import { FakeTransport } from '../../testing/fake-transport';
import { DifferencesList, ReplayGaps } from './DifferencesPanel';
import { ReplayButton, startReplay } from './ReplayButton';

let seq = 0;
function run(runId: string, rounds: Array<{ tool: string; verdict?: 'accept' | 'block'; executed: boolean; outcome: 'executed' | 'blocked' | 'delivered' }>): RunEvent[] {
  const ev = (e: Record<string, unknown>) => ({ run_id: runId, id: `${runId}:${++seq}`, seq, ts: '2026-12-01T00:00:00.000Z', ...e }) as RunEvent;
  return rounds.flatMap((r, round) => [
    ev({ type: 'round.started', round, proposer: 'student' }),
    ...(r.verdict ? [ev({ type: 'verdict.received', round, attempt: { attempt: 1, verdict: { verdict: r.verdict, reason_codes: r.verdict === 'block' ? ['unsafe_effect'] : [], explanation: 'x' }, usable: true } })] : []),
    ...(r.outcome !== 'blocked' ? [ev({ type: 'decision.selected', round, source: 'student', decision: { decision_type: 'tool_call', tool_name: r.tool, arguments: {} } })] : []),
    ...(r.executed ? [ev({ type: 'tool.executed', round, execution: { server: 'fs', tool: r.tool, arguments: {}, idempotency_key: 'k', ok: true, is_error: false, content: '', duration_ms: 0 } })] : []),
    ev({ type: 'round.completed', round, record: { round, proposer: 'student', candidate: {}, repairs: [], verdicts: [], outcome: r.outcome } }),
  ]);
}

const recorded = run('recorded-run-1', [
  { tool: 'read_text_file', executed: true, outcome: 'executed' },
  { tool: 'write_file', verdict: 'accept', executed: true, outcome: 'executed' },
  { tool: 'complete', executed: false, outcome: 'delivered' },
]);
const replayed = run('replayed-run-2', [
  { tool: 'read_text_file', executed: true, outcome: 'executed' },
  { tool: 'write_file', verdict: 'block', executed: false, outcome: 'blocked' },
]);

describe('the Differences panel of a replay', () => {
  it('lists only the rounds whose decisions differ: what changed links to its round, a round only the recorded run had links to that run', () => {
    const html = renderToStaticMarkup(<DifferencesList differences={runDifferences(recorded, replayed)} rounds={3} recordedRunId="recorded-run-1" live={false} />);
    expect(html.match(/data-testid="difference"/g)).toHaveLength(2);
    expect(html).toContain(
      'data-round="1" data-kind="differs"><button type="button" class="link-button">Round 2</button>: tool write_file → — · arguments {} → — · verdict accept → block · executed or not yes → no · outcome executed → blocked',
    );
    expect(html).toMatch(/data-round="2" data-kind="only_recorded"><a href="#\/runs\/recorded-run-1">Round 3<\/a>: only in the recorded run \(complete, delivered\)/);
    expect(html).not.toContain('data-round="0"');
  });

  it('says which recorded answers the replay could not give back exactly', () => {
    const html = renderToStaticMarkup(<ReplayGaps gaps={["round 2: the student's proposal was stored trimmed; the replay gets the stored text"]} />);
    expect(html).toContain('data-testid="replay-gaps"');
    expect(html).toContain('<li>round 2: the student&#x27;s proposal was stored trimmed; the replay gets the stored text</li>');
    expect(renderToStaticMarkup(<ReplayGaps gaps={[]} />)).toBe('');
  });

  it('says so when every round made the recorded decisions, and while the replay runs says "so far"', () => {
    const same = compareDecisions(roundDecisions(recorded), roundDecisions(recorded)).filter((c) => c.kind !== 'same');
    expect(renderToStaticMarkup(<DifferencesList differences={same} rounds={3} recordedRunId="r" live={false} />)).toContain('No differences: every round (3) made the recorded decisions.');
    expect(renderToStaticMarkup(<DifferencesList differences={same} rounds={2} recordedRunId="r" live />)).toContain('No difference so far: 2 rounds made the recorded decisions.');
  });
});

describe('Replay… on a run', () => {
  const doc = HostedWorkflow.parse({ format: 'steward/v1', kind: 'agent', id: 'my-notes', name: 'My notes', instructions: 'Be brief.', task: 'Summarise.' });

  it('asks the host to replay the run dry or live, with the workflow as this page keeps it (the host knows only the demos)', async () => {
    const transport = new FakeTransport((frame) => (frame.kind === 'request' && frame.method === 'runs.replay' ? { run_id: 'new-run', gaps: [] } : undefined));
    const client = createHostClient(transport);
    transport.setState('open');
    const db = new StewardDb(`steward-replay-${Math.random().toString(36).slice(2)}`);
    await db.workflows.put(workflowRow(doc, 'user'));
    expect(await startReplay(client, db, 'old-run', 'my-notes', 'live')).toBe('new-run');
    expect(transport.lastRequest()).toMatchObject({ method: 'runs.replay', params: { run_id: 'old-run', tools: 'live', workflow: { id: 'my-notes', task: 'Summarise.', scs: { mode: 'off' } } } });
    await startReplay(client, db, 'demo-run', 'gone-workflow', 'dry_run');
    expect(transport.lastRequest()).toMatchObject({ method: 'runs.replay', params: { run_id: 'demo-run', tools: 'dry_run' } });
    expect((transport.lastRequest() as { params: Record<string, unknown> }).params.workflow).toBeUndefined();
  });

  it('offers a dry run first, live tools as a choice, and is disabled while the host is not connected', () => {
    const client = createHostClient(new FakeTransport());
    const db = new StewardDb(`steward-replay-button-${Math.random().toString(36).slice(2)}`);
    const html = renderToStaticMarkup(
      <HostProvider client={client} db={db} tokenMissing={false}>
        <ReplayButton runId="run-1" workflowId="my-notes" />
      </HostProvider>,
    );
    expect(html).toMatch(/<button[^>]*data-testid="replay-button"[^>]*disabled=""[^>]*>Replay…<\/button>/);
    expect(html).toMatch(/<input type="radio"[^>]*checked=""[^>]*value="dry_run"/);
    expect(html).toMatch(/<input type="radio" data-testid="replay-live"[^>]*value="live"\/>/);
    expect(html).not.toContain('replay-live-warning');
  });
});
