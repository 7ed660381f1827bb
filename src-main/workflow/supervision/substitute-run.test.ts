import { afterEach, describe, expect, it } from 'vitest';
import { supervisedBy } from '../../../test-support/supervised-by';
import { RunEvent, type RunEventOf } from '@shared/contracts/events';
import { VERDICTS } from '@shared/supervisor/testing/fixtures';
import { WorkflowGraph } from '@shared/workflow/document';
import { edge } from '@shared/workflow/testing/graphs';
import { validateGraph } from '@shared/workflow/validate-graph';
import { extractAgentNode } from '../../../test-support/person-supervised-workflow';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { createMemoryLedger } from '../../mcp/idempotency-ledger';
import { agentSpecOf } from '../agent-node';
import { runWorkflow } from '../run-workflow';
import { WorkflowCheckpoint } from '../workflow-checkpoint';
import { personSupervisionOf } from './person-supervisor';
import type { WorkflowSupervisionOptions } from './workflow-supervision';

/**
 * An agent node with an output schema (issue 11's substitute): an answer the schema refuses fails the
 * node and is the malformed candidate a supervisor may repair. Real scheduler and agent loop; the
 * agent's model is a replay script and the supervisor the scripted double, both at the model boundary.
 */

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

const PERSON = { type: 'object', required: ['name'], properties: { name: { type: 'string' } }, additionalProperties: false };

function extracting(answer: string, schema: Record<string, unknown> = PERSON): WorkflowGraph {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'extract-name',
    name: 'Extract a name',
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text' }] },
      extractAgentNode(answer, schema),
      { id: 'out', kind: 'output', fields: [{ name: 'person', type: 'text' }] },
    ],
    edges: [edge('in.text->extract.text'), edge('extract.output->out.person')],
  });
}

async function run(graph: WorkflowGraph, supervision?: WorkflowSupervisionOptions) {
  const ws = tempNotesWorkspace();
  cleanups.push(ws.cleanup);
  const events: RunEvent[] = [];
  const result = await runWorkflow({ graph, specDir: ws.dir, workspace: ws.workspace, inputs: { text: 'Ada wrote the first program.' }, ledger: createMemoryLedger(), onEvent: (e) => events.push(e), ...(supervision ? { supervision } : {}) });
  for (const e of events) expect(RunEvent.safeParse(e).success).toBe(true);
  return { result, events };
}

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) => events.filter((e): e is RunEventOf<T> => e.type === type);
const PROSE = 'Sure! The person is Ada.';

describe('an agent node with an output schema', () => {
  it('an answer that meets the schema (fenced or not) is the output as the agent said it; the model is told the schema', async () => {
    const fenced = '```json\n{"name": "Ada"}\n```';
    const graph = extracting(fenced);
    const { result } = await run(graph);
    expect(result.status).toBe('completed');
    expect(result.outputs.person).toBe(fenced);
    const node = graph.nodes.find((n) => n.kind === 'agent');
    const spec = node?.kind === 'agent' ? agentSpecOf(node, graph, { text: 'x' }, {}) : undefined;
    expect(spec?.ok && spec.spec.instructions).toContain(`JSON Schema (nothing else): ${JSON.stringify(PERSON)}`);
  }, 30_000);

  it('unsupervised, an answer the schema refuses fails the node by name (output_invalid), saying what is wrong', async () => {
    const { result } = await run(extracting(PROSE));
    expect(result.status).toBe('failed');
    expect(result.invocations.find((i) => i.id === 'extract')?.failure).toMatchObject({ code: 'output_invalid', message: expect.stringMatching(/does not meet the node's output schema/) });
  }, 30_000);

  it('supervised, the refused answer is the candidate and substitute is offered; a substitute that meets the schema becomes the output and the run completes', async () => {
    const { double, supervision } = supervisedBy([{ verdict: VERDICTS.substitute }]);
    const { result, events } = await run(extracting(PROSE), supervision);
    expect(result.message).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(result.outputs.person).toBe('{"name": "Ada"}');
    expect(double.calls[0]?.input.escalation).toMatchObject({ node: 'extract', candidate_output: { output: PROSE }, failure_signature: { code: 'output_invalid' } });
    expect(double.calls[0]?.input.allowed).toContain('substitute');
    expect(ofType(events, 'supervisor.verdict')[0]).toMatchObject({ next: 'done', verdict: { decided_by: 'agent', verdict: { action: 'substitute' } } });
  }, 30_000);

  it('a substitute the schema refuses goes back to the supervisor with the problem; the repair that meets it is applied', async () => {
    const { double, supervision } = supervisedBy([{ verdict: { action: 'substitute', value: { output: '{"nom": "Ada"}' }, reason: 'guessed' } }, { verdict: VERDICTS.substitute }]);
    const { result } = await run(extracting(PROSE), supervision);
    expect(result.status).toBe('completed');
    expect(result.outputs.person).toBe('{"name": "Ada"}');
    expect(double.calls).toHaveLength(2);
    expect(double.calls[1]?.input).toMatchObject({ turn: 2, feedback: expect.stringMatching(/name|nom/) });
  }, 30_000);

  it('three refused repairs end in fail, decided by the kernel: a made-up value never flows on unchecked', async () => {
    const wrong = { verdict: { action: 'substitute', value: { output: 'still prose' }, reason: 'trying' } };
    const { result, events } = await run(extracting(PROSE), supervisedBy([wrong, wrong, wrong, wrong]).supervision);
    expect(result.status).toBe('failed');
    expect(ofType(events, 'supervisor.verdict')[0]).toMatchObject({ next: 'failed', verdict: { decided_by: 'kernel' } });
  }, 30_000);

  it('a person supervising sees the refused answer and types the repair; one the schema refuses asks again with the problem, one it accepts completes the run, also after the run was parked', async () => {
    const graph = WorkflowGraph.parse({ ...extracting(PROSE), supervisor: { enabled: true, who: { kind: 'person' } } });
    const ws = tempNotesWorkspace();
    cleanups.push(ws.cleanup);
    const base = { graph, specDir: ws.dir, workspace: ws.workspace, inputs: { text: 'Ada wrote the first program.' }, ledger: createMemoryLedger(), onEvent: () => undefined };
    const supervision = personSupervisionOf(graph.supervisor);
    const first = await runWorkflow({ ...base, ...(supervision ? { supervision } : {}) });
    expect(first.status).toBe('waiting');
    const asked = first.interventions?.[0]?.intervention.supervision;
    // An agent with no tools on a local model spent and changed nothing: retry is allowed too.
    expect(asked?.escalation).toMatchObject({ candidate_output: { output: PROSE }, allowed_actions: ['retry', 'skip', 'substitute', 'fail'] });
    // Parked on disk (through JSON), answered later: a value that does not meet the schema waits again, saying why.
    const resume = (parked: typeof first, verdict: { action: 'substitute'; value: Record<string, unknown>; reason: string }) =>
      runWorkflow({ ...base, resume: { checkpoint: WorkflowCheckpoint.parse(JSON.parse(JSON.stringify(parked.checkpoint))), answer: { action: 'verdict', verdict } } });
    const again = await resume(first, { action: 'substitute', value: { output: 'Ada' }, reason: 'the name' });
    expect(again.status).toBe('waiting');
    expect(again.interventions?.[0]?.intervention.supervision).toMatchObject({ refused: [{ action: 'substitute', value: { output: 'Ada' } }], feedback: expect.stringMatching(/refused: output: the value does not match the schema/) });
    const done = await resume(again, { action: 'substitute', value: { output: '{"name": "Ada"}' }, reason: 'as JSON' });
    expect(done.status).toBe('completed');
    expect(done.outputs.person).toBe('{"name": "Ada"}');
  }, 30_000);

  it('an output schema that cannot be used is a graph problem on the node', () => {
    expect(validateGraph(extracting(PROSE, { type: 'no-such-type' })).map((p) => [p.node, p.code])).toEqual([['extract', 'invalid_output_schema']]);
  });
});
