import { describe, expect, it } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import type { Intervention } from '@shared/contracts/intervention';
import type { RunRow } from '../../db/db';
import waitingJson from '../../testing/recorded/share-waiting.events.json';
import { askedIn, mergeWaiting, titleWithCount, waitingByWorkflow, waitingHref, waitingLabel, whatItAsks } from './waiting';

const waiting = RunEvent.array().parse(waitingJson);
const shareRun = waiting[0]!.run_id;

function question(over: Partial<Intervention> = {}): Intervention {
  return {
    id: 'run-a:iv:0000',
    run_id: 'run-a',
    round: 0,
    kind: 'escalation',
    decision: { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 'shared.md' } },
    reason: 'a person should approve writing to shared.md',
    reason_codes: [],
    options: ['approve', 'reject', 'takeover', 'stop'],
    requested_at: '2026-12-01T04:00:00.000Z',
    ...over,
  };
}

function run(over: Partial<RunRow> = {}): RunRow {
  return {
    run_id: 'run-a',
    workflow_id: 'ask-a-human',
    spec_name: 'Ask a human',
    status: 'waiting',
    started_at: '2026-12-01T03:59:00.000Z',
    rounds: 0,
    models: { student: 's', teacher: 't' },
    supervision_enabled: true,
    stored_events: 5,
    ...over,
  };
}

const names = new Map([['ask-a-human', 'Ask a human']]);

describe('what waits for you', () => {
  it('a workflow run waiting at a node is named by that node, from its stored events', () => {
    const open = askedIn(waiting);
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ node: 'sharer', intervention: { id: `${shareRun}:sharer:iv:0`, run_id: shareRun, kind: 'escalation' } });
  });

  it("a pattern member's question is named by its node and its member (the member's output id critic#2.1 → critic), from the host's list too", () => {
    const asMember = waiting.map((e) => (e.type === 'intervention.requested' ? RunEvent.parse({ ...e, pattern_member: 'critic#2.1' }) : e));
    expect(askedIn(asMember)).toEqual([expect.objectContaining({ node: 'sharer', member: 'critic' })]);
    const [item] = mergeWaiting({ pending: askedIn(asMember).map((q) => q.intervention), runs: [], asked: new Map([[shareRun, askedIn(asMember)]]), workflowNames: new Map() });
    expect(item).toMatchObject({ node: 'sharer', member: 'critic' });
    // An agent node's own question names no member.
    expect(askedIn(waiting)[0]).not.toHaveProperty('member');
  });

  it('a question answered in the events is no longer open', () => {
    const asked = waiting.find((e) => e.type === 'intervention.requested')!;
    const id = asked.type === 'intervention.requested' ? asked.intervention.id : '';
    const answered = RunEvent.parse({ type: 'intervention.answered', id: 'answered-1', run_id: shareRun, seq: waiting.length, ts: asked.ts, round: 0, intervention_id: id, answer: { action: 'approve' } });
    expect(askedIn([...waiting, answered])).toEqual([]);
  });

  it('the host is the authority when it answered: a waiting row it does not list is not counted', () => {
    const items = mergeWaiting({ pending: [question()], runs: [run(), run({ run_id: 'run-stale' })], asked: new Map(), workflowNames: names });
    expect(items.map((i) => i.run_id)).toEqual(['run-a']);
    expect(items[0]).toMatchObject({ workflow_name: 'Ask a human', kind: 'escalation', since: '2026-12-01T04:00:00.000Z' });
  });

  it('a question whose answer the page already stored is not counted, even while the host still lists it', () => {
    const items = mergeWaiting({ pending: [question(), question({ id: 'run-a:iv:0001' })], runs: [run()], asked: new Map(), answered: new Set(['run-a:iv:0000']), workflowNames: names });
    expect(items.map((i) => i.key)).toEqual(['run-a:iv:0001']);
  });

  it('a question the host holds for a run this page never stored is still counted (a fresh origin after a restart)', () => {
    const items = mergeWaiting({ pending: [question({ run_id: 'run-elsewhere', id: 'run-elsewhere:iv:1' })], runs: [], asked: new Map(), workflowNames: names });
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ run_id: 'run-elsewhere', workflow_name: 'Unknown workflow' });
  });

  it('without the host, every waiting run counts: by its stored question, or as a question not stored here', () => {
    const asked = new Map([['run-a', [{ intervention: question(), node: undefined }]]]);
    const items = mergeWaiting({ pending: undefined, runs: [run(), run({ run_id: 'run-b', started_at: '2026-12-01T03:00:00.000Z' })], asked, workflowNames: names });
    expect(items.map((i) => [i.run_id, i.kind])).toEqual([
      ['run-b', 'question'],
      ['run-a', 'escalation'],
    ]);
  });

  it('a workflow node question is linked to its node in the run, an agent run to the run', () => {
    const asked = new Map([[shareRun, askedIn(waiting)]]);
    const [node] = mergeWaiting({ pending: askedIn(waiting).map((q) => q.intervention), runs: [], asked, workflowNames: new Map() });
    expect(node?.node).toBe('sharer');
    expect(waitingHref(node!)).toBe(`#/runs/${shareRun}/nodes/sharer`);
    const [agent] = mergeWaiting({ pending: [question()], runs: [run()], asked: new Map(), workflowNames: names });
    expect(waitingHref(agent!)).toBe('#/runs/run-a');
  });

  it('counts per workflow for the cards, from the run rows', () => {
    const items = mergeWaiting({ pending: [question(), question({ id: 'run-a:iv:0001' }), question({ run_id: 'run-c', id: 'run-c:iv:0' })], runs: [run(), run({ run_id: 'run-c', workflow_id: 'other' })], asked: new Map(), workflowNames: names });
    expect(Object.fromEntries(waitingByWorkflow(items))).toEqual({ 'ask-a-human': 2, other: 1 });
  });

  it('says what is asked: the tool to confirm, the question, or the teacher’s reason', () => {
    expect(whatItAsks(question({ kind: 'confirmation' }))).toBe('Run write_file?');
    expect(whatItAsks(question({ decision: { decision_type: 'ask_user', question: 'Which file?' } }))).toBe('Which file?');
    expect(whatItAsks(question({ decision: undefined }))).toBe('a person should approve writing to shared.md');
  });

  it('the label and the page title carry the count, and the title is restored at 0', () => {
    expect(waitingLabel(3)).toBe('3 waiting for you');
    expect(waitingLabel(0)).toBe('Nothing waits for you');
    expect(titleWithCount('Steward', 3)).toBe('(3) Steward');
    expect(titleWithCount('(3) Steward', 1)).toBe('(1) Steward');
    expect(titleWithCount('(1) Steward', 0)).toBe('Steward');
  });
});
