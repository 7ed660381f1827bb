import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent } from '@shared/contracts/events';
import { workflowDifferences } from '@shared/replay/compare-workflow-runs';
import { planWorkflowReplay, replayableWorkflowStart } from '@shared/replay/workflow-replay';
import { WorkflowGraph } from '@shared/workflow/document';
import { EXAMPLES } from '../../test-support/workspace';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { runWorkflow } from '../workflow/run-workflow';
import { WorkflowCheckpoint } from '../workflow/workflow-checkpoint';
import { escalatingWithSlowBranch } from '../../test-support/escalating-workflow';

/** The folder-triage run recorded for the renderer (src-main/workflow/recorded-runs.test.ts keeps it current). */
const RECORDED = fileURLToPath(new URL('../../src-renderer/testing/recorded/folder-triage.events.json', import.meta.url));
const fixture = (file: string): RunEvent[] => RunEvent.array().parse(JSON.parse(readFileSync(join(RECORDED, '..', file), 'utf8')));
const recordedRun = (): RunEvent[] => fixture('folder-triage.events.json');
const graph = WorkflowGraph.parse(JSON.parse(readFileSync(join(EXAMPLES, 'folder-triage.workflow.json'), 'utf8')));

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function replay(recorded: RunEvent[], live = false) {
  const dir = mkdtempSync(join(tmpdir(), 'steward-wf-replay-'));
  temps.push(dir);
  const workspace = join(dir, 'triage-sandbox');
  cpSync(join(EXAMPLES, 'triage-sandbox'), workspace, { recursive: true });
  const started = replayableWorkflowStart(recorded, recorded[0]?.run_id ?? '');
  if (!started) throw new Error('not a workflow run');
  const { plan, gaps } = planWorkflowReplay(recorded, started, { live });
  const events: RunEvent[] = [];
  const result = await runWorkflow({ graph, specDir: dir, workspace, inputs: started.inputs, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), replay: plan });
  return { events, result, gaps, workspace };
}

describe('replaying a recorded workflow run', () => {
  it('the recorded folder-triage run replayed dry makes the same decisions in every node invocation, writes nothing, and names the run it replays', async () => {
    const recorded = recordedRun();
    const { events, result, gaps, workspace } = await replay(recorded);
    expect(gaps).toEqual([]);
    expect(result.status).toBe('completed');
    expect(workflowDifferences(recorded, events)).toEqual([]);
    expect(events.find((e) => e.type === 'workflow.started')).toMatchObject({ replay_of: recorded[0]?.run_id, dry_run: true });
    // A replay of this replay is of the recorded run.
    const again = replayableWorkflowStart(events, events[0]?.run_id ?? '');
    expect(again && planWorkflowReplay(events, again, { live: false }).plan.replay_of).toBe(recorded[0]?.run_id);
    // The reviewed write gave back its recorded result: the report was not written.
    expect(existsSync(join(workspace, 'triage-report.md'))).toBe(false);
    const end = (run: RunEvent[]) => run.find((e) => e.type === 'run.finished');
    expect(end(events)).toMatchObject({ status: 'completed', outputs: (end(recorded) as Extract<RunEvent, { type: 'run.finished' }>).outputs });
  }, 60_000);

  it('replayed with live tools, the tool nodes execute again through the boundary (the reviewed write with its recorded verdict) and the decisions are the same', async () => {
    const recorded = recordedRun();
    const { events, result, workspace } = await replay(recorded, true);
    expect(result.status).toBe('completed');
    expect(workflowDifferences(recorded, events)).toEqual([]);
    expect(events.find((e) => e.type === 'workflow.started')).toMatchObject({ dry_run: false });
    expect(readFileSync(join(workspace, 'triage-report.md'), 'utf8')).toContain('# Folder triage');
  }, 60_000);

  it('a recorded run that waited for a person replays to the same wait, and the answer resumes the replay from its checkpoint on its recorded answers', async () => {
    const recorded = [...fixture('share-waiting.events.json'), ...fixture('share-resumed.events.json')];
    const started = replayableWorkflowStart(recorded, recorded[0]?.run_id ?? '');
    if (!started) throw new Error('not a workflow run');
    const { plan } = planWorkflowReplay(recorded, started, { live: false });
    const dir = mkdtempSync(join(tmpdir(), 'steward-wf-replay-'));
    temps.push(dir);
    const workspace = join(dir, 'notes-sandbox');
    cpSync(join(EXAMPLES, 'notes-sandbox'), workspace, { recursive: true });
    const graph = escalatingWithSlowBranch(workspace, 50);
    const events: RunEvent[] = [];
    const kept: WorkflowCheckpoint[] = [];
    const common = { graph, specDir: dir, workspace, ledger: createMemoryLedger(), onEvent: (e: RunEvent) => events.push(e) };
    const first = await runWorkflow({ ...common, inputs: started.inputs, replay: plan, persistWaiting: (c) => kept.push(structuredClone(c)) });
    expect(first.status).toBe('waiting');
    // From disk, as after a host stop: the replay's answers and results are in the checkpoint.
    const checkpoint = WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(first.checkpoint)));
    expect(checkpoint.replay?.replay_of).toBe(recorded[0]?.run_id);
    const second = await runWorkflow({ ...common, inputs: {}, resume: { checkpoint, answer: { action: 'approve' } } });
    expect(second.status).toBe('completed');
    expect(workflowDifferences(recorded, events)).toEqual([]);
    // Dry: the approved write did not execute.
    expect(existsSync(join(workspace, 'shared.md'))).toBe(false);
  }, 60_000);

  it('one recorded answer changed: the replay differs in that invocation’s round and in what follows from it, nowhere else', async () => {
    const recorded = recordedRun();
    const changed = recorded.map((e) =>
      e.type === 'candidate.proposed' && e.invocation_id === 'classify[each-file=1]' ? { ...e, reply: { ...e.reply, text: JSON.stringify({ decision_type: 'complete', output: 'tasks' }) } } : e,
    );
    // The replay runs on the changed answers; compared with the run as it was recorded.
    const { events } = await replay(changed);
    const differences = workflowDifferences(recorded, events);
    const rounds = differences.filter((d) => d.kind === 'round');
    expect(rounds[0]).toMatchObject({ invocation: 'classify[each-file=1]', node: 'classify', item: 1, comparison: { kind: 'differs', round: 0, fields: ['arguments'] } });
    expect(differences.find((d) => d.invocation === 'classify[each-file=1]' && d.kind === 'output')).toMatchObject({ recorded: '{"output":"notes"}', replayed: '{"output":"tasks"}' });
    // Only that item's chain and what gathers it: never another file's read or classification.
    const touched = new Set(differences.map((d) => d.invocation));
    expect([...touched]).toEqual(['classify[each-file=1]', 'check[each-file=1]', 'record[each-file=1]', 'gather', 'classified', 'report', 'write', 'output']);
    expect([...touched].filter((id) => id.includes('[each-file=') && !id.endsWith('[each-file=1]'))).toEqual([]);
    expect(touched.has('read[each-file=1]')).toBe(false);
  }, 60_000);
});
