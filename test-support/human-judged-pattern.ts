import { WorkflowGraph } from '../src-shared/workflow/document';
import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';
import { startFakeOllama, type FakeChatRequest, type FakeOllama } from './fake-ollama';

/**
 * A pattern node a person judges (issue 12): one worker writes the report, a human caller judges
 * it. The worker is a local model on the fake Ollama server (TEST DOUBLE at the model boundary)
 * whose answer depends on its prompt: once the prompt carries "Previous feedback (address this):",
 * the report addresses that feedback — so a person's feedback visibly changes the next iteration.
 */

export const JUDGED_MODEL = 'qwen3:4b';
export const FIRST_REPORT = 'Incident report: the database went down at night.';

export interface JudgedOptions {
  id?: string;
  expiry_seconds?: number;
  fallback?: { kind: 'escalate' } | { kind: 'llm'; profile: string };
  max_iterations?: number;
}

export function humanJudgedWorkflow(o: JudgedOptions = {}): HostedWorkflowGraph {
  const model = { provider: 'ollama', model: JUDGED_MODEL };
  const id = o.id ?? 'judged-report';
  return HostedWorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id,
    name: 'Judged report',
    nodes: [
      { id: 'in', kind: 'input', position: { x: 0, y: 0 }, fields: [{ name: 'task', type: 'text' }] },
      {
        id: 'report',
        kind: 'pattern',
        position: { x: 260, y: 0 },
        type: 'SUPERVISOR',
        task: '{{task}}',
        inputs: [{ name: 'task', type: 'text' }],
        members: [{ id: 'worker', role: 'worker', instructions: 'Write the report; address any previous feedback.', models: { student: model, teacher: model } }],
        max_iterations: o.max_iterations ?? 3,
        on_exhaustion: 'fail',
        judgment: {
          mode: 'post_step',
          callers: [{ kind: 'human', ...(o.expiry_seconds !== undefined ? { expiry_seconds: o.expiry_seconds } : {}), ...(o.fallback ? { fallback: o.fallback } : {}) }],
          verifier: { min_citations: 1, must_cite: ['worker'] },
        },
        ...(o.fallback?.kind === 'llm' ? { judge_models: { [o.fallback.profile]: model } } : {}),
      },
      {
        id: 'out',
        kind: 'output',
        position: { x: 520, y: 0 },
        fields: [
          { name: 'report', type: 'text' },
          { name: 'approved', type: 'boolean' },
          { name: 'iterations', type: 'number' },
        ],
      },
    ],
    edges: [
      { from: { node: 'in', port: 'task' }, to: { node: 'report', port: 'task' } },
      { from: { node: 'report', port: 'output' }, to: { node: 'out', port: 'report' } },
      { from: { node: 'report', port: 'approved' }, to: { node: 'out', port: 'approved' } },
      { from: { node: 'report', port: 'iterations' }, to: { node: 'out', port: 'iterations' } },
    ],
  });
}

const FEEDBACK = 'Previous feedback (address this):\n';

/** What the scripted worker writes for a prompt: the first report, or one that addresses the feedback it was given. */
export function workerReport(prompt: string): string {
  const at = prompt.lastIndexOf(FEEDBACK);
  if (at < 0) return FIRST_REPORT;
  const feedback = prompt.slice(at + FEEDBACK.length).split('\n')[0]?.trim() ?? '';
  return `${FIRST_REPORT}\nRevised to address: ${feedback}`;
}

const textOf = (request: FakeChatRequest) => request.messages.map((m) => m.content).join('\n');

/**
 * The fake Ollama server: the members' teacher accepts; a judge (a person's fallback model)
 * approves citing every output it is shown; the worker writes `workerReport(prompt)`.
 */
export function startJudgedModels(): Promise<FakeOllama> {
  return startFakeOllama({
    models: [{ name: JUDGED_MODEL, family: 'qwen3', parameter_size: '4B', capabilities: ['completion', 'tools'] }],
    chat: (request) => {
      const text = textOf(request);
      if (request.messages[0]?.content.includes('You are the teacher')) return { message: { content: JSON.stringify({ verdict: 'accept', reason_codes: [], explanation: 'Fine.' }) } };
      if (text.includes('Member outputs (cite by id):')) {
        const ids = [...text.matchAll(/^\[([^\]]+)\] \(/gm)].map((m) => m[1]);
        return { message: { content: JSON.stringify({ verdict: 'approved', evidence: ids }) } };
      }
      return { message: { content: JSON.stringify({ decision_type: 'complete', output: workerReport(text) }) } };
    },
  });
}

const complete = (output: string) => ({ json: { decision_type: 'complete', output } });

/**
 * The same judgment on replay models (the scripted provider is the double at the model boundary):
 * a person judges first, then a model judge (agreement `all`); the writer's second draft adds the
 * risks, the model judge rejects the first and approves the second.
 */
export function replayJudgedWorkflow(): WorkflowGraph {
  return WorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'judged-replay',
    name: 'Judged on replay',
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'topic', type: 'text' }] },
      {
        id: 'p',
        kind: 'pattern',
        type: 'SUPERVISOR',
        task: 'Write a short design note about {{topic}}.',
        inputs: [{ name: 'topic', type: 'text' }],
        members: [{ id: 'draft', role: 'writer', instructions: 'Write the note.', script: { student: [complete('Draft 1'), complete('Draft 2, with the risks')] } }],
        max_iterations: 3,
        judgment: { mode: 'post_step', callers: [{ kind: 'human' }, { kind: 'llm', profile: 'judge' }], agreement: 'all', verifier: { must_cite: ['draft'] } },
        judge_models: { judge: { provider: 'script' } },
        judge_script: { teacher: [{ json: { verdict: 'rejected', feedback: 'The risks are missing.', evidence: ['draft#1'] } }, { json: { verdict: 'approved', evidence: ['draft#2'] } }] },
      },
      { id: 'out', kind: 'output', fields: [{ name: 'note', type: 'text' }, { name: 'approved', type: 'boolean' }] },
    ],
    edges: [
      { from: { node: 'in', port: 'topic' }, to: { node: 'p', port: 'topic' } },
      { from: { node: 'p', port: 'output' }, to: { node: 'out', port: 'note' } },
      { from: { node: 'p', port: 'approved' }, to: { node: 'out', port: 'approved' } },
    ],
  });
}
