import { eventId, RunEvent } from '../src-shared/contracts/events';
import { SupervisionSpec } from '../src-shared/contracts/spec';
import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';

/**
 * A workflow graph with two agent nodes, `reader` then `writer` (issue 29: promotion is earned per
 * agent node), each on the replay script (the TEST DOUBLE at the model boundary): the student
 * completes, a teacher asked to review accepts. Both start in `phase`.
 */
export function twoAgentGraph(id = 'two-agents', phase: 0 | 1 | 2 | 3 | 4 = 2): HostedWorkflowGraph {
  const agent = (node: string, label: string, output: string) => ({
    id: node,
    kind: 'agent',
    label,
    instructions: 'Answer in one line.',
    task: 'Say something about {{topic}}.',
    inputs: [{ name: 'topic', type: 'text' }],
    supervision: { phase },
    script: {
      student: [{ json: { decision_type: 'complete', output } }],
      teacher: [{ json: { verdict: 'accept', reason_codes: [], explanation: 'Fine.' } }],
    },
  });
  return HostedWorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id,
    name: 'Two agents',
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'topic', type: 'text' }] },
      agent('reader', 'Reader', 'read it'),
      agent('writer', 'Writer', 'wrote it'),
      { id: 'out', kind: 'output', fields: [{ name: 'read', type: 'text' }, { name: 'written', type: 'text' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'topic' }, to: { node: 'reader', port: 'topic' } },
      { from: { node: 'in', port: 'topic' }, to: { node: 'writer', port: 'topic' } },
      { from: { node: 'reader', port: 'output' }, to: { node: 'out', port: 'read' } },
      { from: { node: 'writer', port: 'output' }, to: { node: 'out', port: 'written' } },
    ],
  });
}

const MODELS = { student: 'replay', teacher: 'replay' };
const READ = { decision_type: 'tool_call', tool_name: 'read_text_file', arguments: { path: 'a.md' } } as const;
const WRITE = { decision_type: 'tool_call', tool_name: 'write_file', arguments: { path: 'a.md', content: 'x' } } as const;
const TOOLS = [
  { name: 'read_text_file', server: 'fs', schema_hash: 'h-read', effect: 'read', effect_source: 'shipped' },
  { name: 'write_file', server: 'fs', schema_hash: 'h-write', effect: 'irreversible_write', effect_source: 'shipped' },
] as const;

/**
 * A recorded history of that workflow as its runs' events (for `runs.import`): in each run the
 * reader's student reads and the teacher accepts every round (it earns promotion), while the
 * writer's student writes and the teacher blocks one round in `writerBlockEvery` (it earns demotion).
 */
export function twoAgentHistory(workflowId: string, options: { runs: number; roundsPerNode: number; writerBlockEvery: number; start?: number }): RunEvent[] {
  const events: RunEvent[] = [];
  const t0 = options.start ?? Date.UTC(2026, 10, 1);
  for (let r = 0; r < options.runs; r += 1) {
    const runId = `two-agents-recorded-${String(r).padStart(3, '0')}`;
    let seq = 0;
    let clock = t0 + r * 3_600_000;
    const emit = (payload: Record<string, unknown>, node?: string) => {
      clock += 1000;
      events.push(RunEvent.parse({ ...payload, ...(node ? { invocation_id: node } : {}), id: eventId(runId, seq), run_id: runId, seq, ts: new Date(clock).toISOString() }));
      seq += 1;
    };
    emit({ type: 'run.started', spec_id: workflowId, spec_name: 'Two agents', task: 'workflow', supervision: SupervisionSpec.parse({}), models: MODELS });
    emit({ type: 'workflow.started', workflow_id: workflowId, workflow_name: 'Two agents', nodes: [{ id: 'in', kind: 'input' }, { id: 'reader', kind: 'agent' }, { id: 'writer', kind: 'agent' }, { id: 'out', kind: 'output' }], inputs: { topic: 'notes' } });
    for (const node of ['reader', 'writer'] as const) {
      emit({ type: 'agent.started', spec_id: node, spec_name: node, task: 't', supervision: SupervisionSpec.parse({ phase: 2 }), models: MODELS }, node);
      for (let round = 0; round < options.roundsPerNode; round += 1) {
        const blocked = node === 'writer' && round % options.writerBlockEvery === 0;
        const candidate = node === 'reader' ? READ : WRITE;
        const verdict = blocked ? { verdict: 'block', reason_codes: ['unsafe_effect'], explanation: 'Not this write.' } : { verdict: 'accept', reason_codes: [], explanation: 'Fine.' };
        emit({ type: 'tools.snapshot', round, hash: 'h', tools: [...TOOLS] }, node);
        emit(
          {
            type: 'round.completed',
            round,
            record: {
              round,
              proposer: 'student',
              candidate: { parsed: { raw: candidate, tool_call_count: 1 } },
              review: { required: true, rule: 'review_all' },
              verdicts: [{ attempt: 1, verdict, usable: true }],
              verdict,
              ...(blocked ? {} : { selected: { source: 'student', decision: candidate } }),
              outcome: blocked ? 'blocked' : 'executed',
            },
          },
          node,
        );
        emit({ type: 'learning.example', round, kind: 'review', context: [], rule: 'review_all', student_candidate: candidate, verdict, reason_codes: verdict.reason_codes, agreement: !blocked, models: MODELS }, node);
      }
      emit({ type: 'agent.finished', status: 'completed', output: 'done', rounds: options.roundsPerNode }, node);
    }
    emit({ type: 'run.finished', status: 'completed', rounds: 0, event_count: seq + 1 });
  }
  return events;
}
