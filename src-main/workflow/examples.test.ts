import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/contracts/events';
import { agentAsWorkflow, WorkflowGraph } from '@shared/workflow/document';
import { validateGraph } from '@shared/workflow/validate-graph';
import { EXAMPLES } from '../../test-support/workspace';
import { runAgent } from '../engine/run-agent';
import { createMemoryLedger } from '../mcp/idempotency-ledger';
import { loadSpecFile } from '../spec/load-spec';
import { runWorkflow, type WorkflowRun } from './run-workflow';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const workflowFiles = readdirSync(EXAMPLES).filter((f) => f.endsWith('.workflow.json'));
const load = (file: string): WorkflowGraph => WorkflowGraph.parse(JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')));

describe('the shipped example workflows', () => {
  it('are the two examples, the three reference shapes of seed 004 and one pattern node of each type (issue 12)', () => {
    expect(workflowFiles.sort()).toEqual([
      'batch-fanout.workflow.json',
      'folder-triage.workflow.json',
      'memory-notes.workflow.json',
      'paid-chain.workflow.json',
      'pattern-debate.workflow.json',
      'pattern-pipeline.workflow.json',
      'pattern-supervisor.workflow.json',
      'streaming-chain.workflow.json',
    ]);
  });

  it.each(workflowFiles)('%s parses and validates with no problem', (file) => {
    expect(validateGraph(load(file))).toEqual([]);
  });
});

describe('the shipped agent specs as one-node workflows', () => {
  const specFiles = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json') && !f.endsWith('.workflow.json') && !f.endsWith('.script.json'));

  it.each(specFiles)('%s is a one-node workflow that validates clean', (file) => {
    const { spec } = loadSpecFile(join(EXAMPLES, file));
    expect(validateGraph(agentAsWorkflow(spec))).toEqual([]);
  });

  it('notes-assistant run as a workflow delivers what the agent run delivers, on the same rounds', async () => {
    const loaded = loadSpecFile(join(EXAMPLES, 'notes-assistant.json'));
    const script = loaded.script ? { ...loaded.script, latency_ms: 0 } : undefined;
    const runOnCopy = async (how: 'agent' | 'workflow') => {
      const dir = mkdtempSync(join(tmpdir(), 'steward-example-'));
      temps.push(dir);
      const workspace = join(dir, 'notes-sandbox');
      cpSync(join(EXAMPLES, 'notes-sandbox'), workspace, { recursive: true });
      const events: RunEvent[] = [];
      const common = { specDir: dir, workspace, ledger: createMemoryLedger(), onEvent: (e: RunEvent) => events.push(e) };
      const output =
        how === 'agent'
          ? (await runAgent({ ...common, spec: loaded.spec, script })).output
          : (await runWorkflow({ ...common, graph: agentAsWorkflow({ ...loaded.spec, ...(script ? { script } : {}) }), inputs: {} })).outputs.output;
      const executed = events.flatMap((e) => (e.type === 'tool.executed' ? [[e.execution.tool, e.execution.arguments.path]] : []));
      return { output, executed: JSON.stringify(executed).replaceAll(dir, 'DIR'), summary: readFileSync(join(workspace, 'summary.md'), 'utf8') };
    };
    const agent = await runOnCopy('agent');
    expect(agent.output).toMatch(/^Wrote summary.md/);
    expect(await runOnCopy('workflow')).toEqual(agent);
  });
});

// ---------------------------------------------------------------------------------------------
// End to end: the real MCP servers, replay models, a temp copy of each sandbox.

async function runExample(file: string, inputs: Record<string, unknown> = {}, change?: (graph: WorkflowGraph) => void): Promise<{ run: WorkflowRun; events: RunEvent[]; workspace?: string }> {
  const graph = load(file);
  change?.(graph);
  const dir = mkdtempSync(join(tmpdir(), 'steward-example-'));
  temps.push(dir);
  let workspace: string | undefined;
  if (graph.workspace !== undefined) {
    workspace = join(dir, graph.workspace);
    cpSync(join(EXAMPLES, graph.workspace), workspace, { recursive: true });
  }
  const events: RunEvent[] = [];
  const run = await runWorkflow({ graph, specDir: dir, workspace, inputs, ledger: createMemoryLedger(), onEvent: (e) => events.push(e) });
  return { run, events, workspace };
}

const CATEGORIES = ['notes', 'tasks', 'data', 'code', 'correspondence'];
const statusOrder = (events: RunEvent[], id: string, status: string): number =>
  events.findIndex((e) => e.type === 'node.invocation' && e.invocation_id === id && e.status === status);

describe('the example workflows run end to end', () => {
  it('folder triage reads every file, classifies it, and the reviewed report on disk lists every file with its category', async () => {
    const { run, events, workspace } = await runExample('folder-triage.workflow.json');
    expect(run.message).toBeUndefined();
    expect(run.status).toBe('completed');
    const files = run.outputs.files as Array<{ file: string; category: string }>;
    const sandbox = readdirSync(join(EXAMPLES, 'triage-sandbox')).sort();
    expect(files.map((f) => f.file).sort()).toEqual(sandbox);
    for (const f of files) expect(CATEGORIES).toContain(f.category);

    const report = readFileSync(join(workspace as string, 'triage-report.md'), 'utf8');
    expect(report).toBe(run.outputs.report);
    for (const f of files) expect(report).toContain(`"file":"${f.file}","category":"${f.category}"`);

    // One classify invocation per file, each with its own lineage; the write was the teacher's to accept.
    const classified = run.invocations.filter((i) => i.node === 'classify' && i.status === 'done');
    expect(classified.map((i) => i.lineage[0]?.index).sort()).toEqual(sandbox.map((_, i) => i));
    const verdicts = events.filter((e) => e.type === 'verdict.received' && e.invocation_id === 'write');
    expect(verdicts.map((e) => (e.type === 'verdict.received' ? e.attempt.verdict?.verdict : undefined))).toEqual(['accept']);
  });

  it('folder triage fails, and writes no report, when the classifier answers outside the allowed categories', async () => {
    const { run, workspace } = await runExample('folder-triage.workflow.json', {}, (graph) => {
      const classify = graph.nodes.find((n) => n.id === 'classify');
      if (classify?.kind !== 'agent' || !classify.script) throw new Error('the example changed: no scripted classify node');
      classify.script.student = [{ json: { decision_type: 'complete', output: 'recipe' } }];
    });
    expect(run.status).toBe('failed');
    expect(run.message).toMatch(/^assert_failed: check 1 \(regex\)/);
    expect(run.invocations.filter((i) => i.node === 'check').map((i) => i.status)).toEqual(Array.from({ length: 5 }, () => 'failed'));
    expect(run.invocations.find((i) => i.node === 'write')?.status).toBe('skipped');
    expect(existsSync(join(workspace as string, 'triage-report.md'))).toBe(false);
  });

  it('memory notes stores the note in the knowledge graph file and reports what the graph knows', async () => {
    const { run, workspace } = await runExample('memory-notes.workflow.json', { topic: 'Release 0.5', note: 'Ships after the migration guide' });
    expect(run.status).toBe('completed');
    expect(run.outputs.report).toBe('# Release 0.5\n\nThe memory graph knows Release 0.5 (topic): Ships after the migration guide\n');
    const stored = readFileSync(join(workspace as string, 'memory.jsonl'), 'utf8');
    expect(stored).toContain('"name":"Release 0.5"');
    expect(stored).toContain('"name":"Offsite"'); // the graph it started with is still there
  });

  it('batch fan-out summarises every ticket and collect keeps them in item order', async () => {
    const { run } = await runExample('batch-fanout.workflow.json');
    expect(run.status).toBe('completed');
    expect(run.outputs.summaries).toEqual(Array.from({ length: 4 }, () => 'A user-facing problem worth a look this week.'));
    const summarized = run.invocations.filter((i) => i.node === 'summarize');
    expect(summarized.map((i) => i.id).sort()).toEqual([0, 1, 2, 3].map((i) => `summarize[each=${i}]`));
  });

  it('the paid chain runs its three agents one after the other, each fed the previous answer', async () => {
    const { run, events } = await runExample('paid-chain.workflow.json');
    expect(run.status).toBe('completed');
    expect(run.outputs.announcement).toBe('Save the date: our offsite is on 12–13 December at the lake house! Pack a laptop and walking shoes. Any questions, ask Ana.');
    const started = events.flatMap((e) => (e.type === 'agent.started' ? [[e.invocation_id, e.task]] : []));
    expect(started).toEqual([
      ['outline', 'Outline a three-point announcement about the offsite in December.'],
      ['draft', 'Write the announcement from this outline: 1. When and where. 2. What to bring. 3. Who to ask.'],
      ['polish', expect.stringContaining('Make this friendlier and keep it under 60 words: The offsite is on 12 and 13 December')],
    ]);
  });

  it('the streaming chain stores every chunk through the reviewed sink: the read streams, the first chunk is stored before the last is read', async () => {
    const { run, events, workspace } = await runExample('streaming-chain.workflow.json');
    expect(run.status).toBe('completed');
    const ids = ['chunk-1', 'chunk-2', 'chunk-3', 'chunk-4', 'chunk-5', 'chunk-6'];
    expect(run.outputs.upserted).toEqual(ids.map((id) => expect.stringContaining(`${id}.json`)));
    for (const id of ids) {
      const chunk = JSON.parse(readFileSync(join(EXAMPLES, 'streaming-sandbox', 'document', `${id}.json`), 'utf8')) as { id: string; text: string };
      expect(JSON.parse(readFileSync(join(workspace as string, `${id}.json`), 'utf8'))).toEqual({ id, text: chunk.text, embedding: 'stand-in' });
    }
    // One read per chunk file, in order, each in its own round.
    const reads = events.flatMap((e) => (e.type === 'tool.executed' && e.invocation_id === 'read' ? [e] : []));
    expect(reads.map((e) => e.round)).toEqual([0, 1, 2, 3, 4, 5]);
    // No barrier anywhere: chunk 1 is stored before chunk 6 is read, and before chunk 6 is embedded.
    expect(statusOrder(events, 'upsert[chunk=0]', 'done')).toBeGreaterThanOrEqual(0);
    expect(statusOrder(events, 'upsert[chunk=0]', 'done')).toBeLessThan(events.indexOf(reads[5] as RunEvent));
    expect(statusOrder(events, 'upsert[chunk=0]', 'done')).toBeLessThan(statusOrder(events, 'embed[chunk=5]', 'running'));
  });

  it('the PIPELINE pattern: the judge rejects the first draft for its missing Risks section, the second adds it, and every step is approved in turn', async () => {
    const { run, events } = await runExample('pattern-pipeline.workflow.json');
    expect(run.status).toBe('completed');
    expect(run.outputs.approved).toBe(true);
    expect(run.outputs.iterations).toBe(4);
    expect(String(run.outputs.notes)).toMatch(/^# Release 0\.9\n[\s\S]*## Risks\n/);
    const verdicts = events.flatMap((e) => (e.type === 'pattern.judgment' ? [`${e.judgment.id}:${e.judgment.verdict?.verdict ?? 'unusable'}`] : []));
    expect(verdicts).toEqual(['notes:j0.1.0.1:rejected', 'notes:j0.2.0.1:approved', 'notes:j1.1.0.1:approved', 'notes:j2.1.0.1:approved']);
    const second = events.find((e) => e.type === 'agent.started' && e.pattern_member === 'draft#2');
    expect(second?.type === 'agent.started' && second.task).toContain('Previous feedback (address this):\nMissing a Risks section');
    expect(events.filter((e) => e.type === 'pattern.preference')).toHaveLength(1);
  });

  it('the SUPERVISOR pattern: the supervisor’s review is the judgment; its feedback gets the root cause into the second summary', async () => {
    const { run, events } = await runExample('pattern-supervisor.workflow.json');
    expect(run.outputs).toMatchObject({ approved: true, iterations: 2 });
    expect(String(run.outputs.summary)).toContain('Root cause');
    // The supervisor judges; it is never dispatched as a member.
    expect(events.filter((e) => e.type === 'agent.started').map((e) => e.pattern_member)).toEqual(['worker#1', 'worker#2']);
  });

  it('the DEBATE pattern: the judge cites both sides, sends the first round back, and approves the second', async () => {
    const { run, events } = await runExample('pattern-debate.workflow.json');
    expect(run.outputs).toMatchObject({ approved: true, iterations: 2 });
    expect(String(run.outputs.decision)).toContain('## proponent (proponent#2)');
    const approved = events.flatMap((e) => (e.type === 'pattern.judgment' && e.judgment.verdict?.verdict === 'approved' ? [e.judgment.evidence] : []));
    expect(approved).toEqual([['proponent#2', 'opponent#2']]);
  });

  it('a run never changes the shipped sandboxes (it works on a copy)', () => {
    expect(existsSync(join(EXAMPLES, 'triage-sandbox', 'triage-report.md'))).toBe(false);
    expect(existsSync(join(EXAMPLES, 'streaming-sandbox', 'chunk-1.json'))).toBe(false);
  });
});
