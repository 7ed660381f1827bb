import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { RunEvent, eventId } from '@shared/contracts/events';
import { HostProvider } from '../../app/HostProvider';
import { createHostClient } from '../../host/host-client';
import { StewardDb } from '../../db/db';
import { FakeTransport } from '../../testing/fake-transport';
import { InvocationDetails, NodesPanel } from './NodesPanel';
import { deriveInvocations } from '../../db/derive-invocations';
import triageJson from '../../testing/recorded/folder-triage.events.json';
import waitingJson from '../../testing/recorded/share-waiting.events.json';

const triage = RunEvent.array().parse(triageJson);
const waiting = RunEvent.array().parse(waitingJson);

/** The panel as the page first paints it (no effects run), inside a host context that never connects. */
function paint(events: RunEvent[], focusNode?: string): string {
  const client = createHostClient(new FakeTransport());
  const db = new StewardDb(`steward-nodes-panel-${Math.random().toString(36).slice(2)}`);
  return renderToStaticMarkup(
    <HostProvider client={client} db={db} tokenMissing={false}>
      <NodesPanel runId={events[0]?.run_id ?? ''} run={undefined} events={events} hostPending={undefined} focusNode={focusNode} />
    </HostProvider>,
  );
}

const count = (html: string, needle: string) => html.split(needle).length - 1;

describe('NodesPanel', () => {
  it('an agent node’s row shows what its model calls cost; a recording from before calls were measured shows nothing', () => {
    // As a host wrote it before calls were measured: replies without usage or latency.
    const unmeasured = JSON.parse(JSON.stringify(triage), (key, value: unknown) => (key === 'usage' || key === 'latency_ms' ? undefined : value)) as typeof triage;
    expect(paint(unmeasured)).not.toContain('data-testid="node-model-usage"');
    const measured = unmeasured.map((e) =>
      e.type === 'candidate.proposed' && e.invocation_id === 'classify[each-file=0]' ? { ...e, reply: { ...e.reply, usage: { input_tokens: 1234, output_tokens: 56 }, latency_ms: 1500 } } : e,
    );
    const proposals = measured.filter((e) => e.type === 'candidate.proposed' && e.invocation_id === 'classify[each-file=0]').length;
    const html = paint(measured);
    expect(count(html, 'data-testid="node-model-usage"')).toBe(1);
    expect(html).toContain(`1,234 in / 56 out tokens`);
    expect(html).toContain(`${((1500 * proposals) / 1000).toFixed(1)} s model time`);
  });

  it('paints one row per invocation of a recorded run, items one level in, each a button that opens it', () => {
    const html = paint(triage);
    expect(count(html, 'data-testid="node-invocation"')).toBe(27);
    expect(count(html, '--depth:1')).toBe(20);
    expect(count(html, 'class="node-inv__toggle" aria-expanded="false"')).toBe(27);
    expect(html).toContain('data-invocation-id="classify[each-file=4]"');
    expect(html).not.toContain('data-testid="pending-node"');
  });

  it('paints a node waiting for a person with the answer card, named by its node', () => {
    const html = paint(waiting);
    expect(count(html, 'data-testid="pending-node"')).toBe(1);
    expect(html).toContain('data-invocation-id="sharer"');
    expect(html).toContain('data-testid="intervention-card"');
    expect(html).toMatch(/<strong>sharer<\/strong> asks you/);
  });

  it('a run parked by a host stop names the node stopped with it, which starts again once answered, and does not call it still running', () => {
    const runId = waiting[0]!.run_id;
    // `slow` was still running when the host stopped: its agent's events and its end never came.
    const cut = waiting.filter((e) => !(e.invocation_id === 'slow' && (e.type !== 'node.invocation' || e.status === 'done')));
    const notice = RunEvent.parse({ type: 'run.notice', id: eventId(runId, 38), run_id: runId, seq: 38, ts: waiting.at(-1)!.ts, message: 'The host stopped while this run waited for you.', stopped: ['slow'] });
    const parked = paint([...cut, notice]);
    expect(parked).toContain('data-testid="pending-node-stopped"');
    expect(parked).toContain('The host stopped while this run waited for you, and slow was stopped with it: it starts again once you answer');
    expect(parked).not.toContain('data-testid="pending-node-others-running"');
    // Its row and the counts say pending (it starts again on the answer), not running.
    expect(parked).not.toContain('node-inv--running');
    // Without the host stop, the same running node is said to run beside the question.
    const live = paint(cut);
    expect(live).toContain('node-inv--running');
    expect(live).toContain('Other nodes of this run are still running; your answer does not wait for them.');
    expect(live).not.toContain('data-testid="pending-node-stopped"');
    // Started again after the stop: running, not stopped.
    const again = RunEvent.parse({ ...cut.find((e) => e.type === 'node.invocation' && e.invocation_id === 'slow' && e.status === 'running'), id: eventId(runId, 39), seq: 39 });
    const restarted = paint([...cut, notice, again]);
    expect(restarted).not.toContain('data-testid="pending-node-stopped"');
    expect(restarted).toContain('data-testid="pending-node-others-running"');
  });

  it('an opened agent item shows its inputs, outputs and its rounds; a reviewed tool call shows its one round', () => {
    const views = deriveInvocations(triage);
    const open = (id: string) => {
      const view = views.find((v) => v.id === id);
      if (!view) throw new Error(`no ${id} in the recording`);
      return renderToStaticMarkup(<InvocationDetails view={view} events={triage} />);
    };
    const classify = open('classify[each-file=0]');
    expect(classify).toContain('data-testid="node-inputs"');
    expect(classify).toContain('data-testid="node-outputs"');
    expect(count(classify, 'data-testid="round-card"')).toBeGreaterThan(0);
    const write = open('write');
    expect(write).toContain('The call');
    expect(count(write, 'data-testid="round-card"')).toBe(1);
    expect(open('each-file')).not.toContain('data-testid="node-rounds"');
  });

  it('an agent item cut off mid-round by the run\'s end (a host stop) shows its round as not finished, nothing as still going on', () => {
    // The recording up to the first classify round's start (its model had not answered), then the host's interrupted end.
    const cut = triage.slice(0, triage.findIndex((e) => e.type === 'round.started' && e.invocation_id === 'classify[each-file=0]') + 1);
    const last = cut.at(-1);
    if (!last) throw new Error('the recording has no classify round');
    const ended = [...cut, RunEvent.parse({ type: 'run.finished', id: `${last.run_id}:${String(cut.length).padStart(6, '0')}`, run_id: last.run_id, seq: cut.length, ts: last.ts, status: 'interrupted', message: 'The Steward host stopped while this run was in progress.', rounds: 0, event_count: cut.length + 1 })];
    const view = deriveInvocations(ended).find((v) => v.id === 'classify[each-file=0]');
    if (!view) throw new Error('no classify item');
    expect(view.cut_off).toBe(true);
    const html = renderToStaticMarkup(<InvocationDetails view={view} events={ended} />);
    expect(count(html, 'data-testid="round-card"')).toBe(1);
    expect(html).toContain('Did not finish');
    expect(html).not.toContain('In progress');
    expect(html).not.toContain('class="spinner"');
    expect(html).not.toContain('round--live');
    // While the run still ran, the same round was live.
    const live = deriveInvocations(cut).find((v) => v.id === 'classify[each-file=0]');
    if (!live) throw new Error('no classify item');
    expect(renderToStaticMarkup(<InvocationDetails view={live} events={cut} />)).toContain('In progress');
  });

  it('says so when the node it was opened on has not run', () => {
    expect(paint(triage, 'nowhere')).toContain('data-testid="nodes-focus-missing"');
  });
});
