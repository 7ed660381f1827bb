import { HostedWorkflowGraph } from '../src-shared/workflow/hosted-graph';
import { edge } from '../src-shared/workflow/testing/graphs';


/** Reads each file with the shipped filesystem server, shouts it, collects the list; a person supervises. */
export function personSupervisedReads(): HostedWorkflowGraph {
  return HostedWorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'read-notes',
    name: 'Read notes',
    workspace: 'notes',
    supervisor: { enabled: true, who: { kind: 'person' } },
    servers: [{ id: 'fs', server: 'filesystem' }],
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'items', type: 'list' }] },
      { id: 'each', kind: 'iterate' },
      { id: 'read', kind: 'tool', server: 'fs', tool: 'read_text_file', inputs: [{ name: 'path', type: 'text' }], arguments: { path: '{{path}}' } },
      { id: 'shout', kind: 'template', inputs: [{ name: 'text', type: 'text' }], template: '{{text}}!' },
      { id: 'all', kind: 'collect' },
      { id: 'out', kind: 'output', fields: [{ name: 'list', type: 'list' }] },
    ],
    edges: [edge('in.items->each.list'), edge('each.item->read.path'), edge('read.text->shout.text'), edge('shout.output->all.item'), edge('all.list->out.list')],
  });
}

/** Streams read_text_file over the files (each note sent on as it is read), shouts each, collects the list; a person supervises. */
export function personSupervisedStream(): HostedWorkflowGraph {
  return HostedWorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'stream-notes',
    name: 'Stream notes',
    workspace: 'notes',
    supervisor: { enabled: true, who: { kind: 'person' } },
    servers: [{ id: 'fs', server: 'filesystem' }],
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'files', type: 'list' }] },
      { id: 'read', kind: 'tool', server: 'fs', tool: 'read_text_file', inputs: [{ name: 'files', type: 'list' }], stream: { over: 'files' }, arguments: { path: '{{item}}' } },
      { id: 'each', kind: 'iterate' },
      { id: 'shout', kind: 'template', inputs: [{ name: 'note' }], template: '{{note.content}}!' },
      { id: 'all', kind: 'collect' },
      { id: 'out', kind: 'output', fields: [{ name: 'list', type: 'list' }] },
    ],
    edges: [edge('in.files->read.files'), edge('read.result->each.list'), edge('each.item->shout.note'), edge('shout.output->all.item'), edge('all.list->out.list')],
  });
}

/** The prose a replay script's agent answers where JSON was asked for (issue 11's malformed candidate). */
export const EXTRACT_PROSE = 'Sure! The person is Ada.';

/** An agent node (a replay script: it answers `answer` in one round) that extracts the person named in its input `text`. */
export function extractAgentNode(answer: string, outputSchema?: Record<string, unknown>) {
  return {
    id: 'extract',
    kind: 'agent' as const,
    instructions: 'Extract the person named in the text.',
    task: 'Who is named here? {{text}}',
    inputs: [{ name: 'text', type: 'text' as const }],
    servers: [],
    limits: { max_rounds: 1 },
    ...(outputSchema !== undefined ? { output_schema: outputSchema } : {}),
    script: { student: [{ json: { decision_type: 'complete', output: answer } }] },
  };
}

/** text → the extracting agent (it answers prose) → output; a person supervises. No output schema yet. */
export function personSupervisedExtract(): HostedWorkflowGraph {
  return HostedWorkflowGraph.parse({
    format: 'steward/v1',
    kind: 'workflow',
    id: 'extract-name',
    name: 'Extract a name',
    supervisor: { enabled: true, who: { kind: 'person' } },
    servers: [],
    nodes: [
      { id: 'in', kind: 'input', fields: [{ name: 'text', type: 'text' }] },
      extractAgentNode(EXTRACT_PROSE),
      { id: 'out', kind: 'output', fields: [{ name: 'person', type: 'text' }] },
    ],
    edges: [edge('in.text->extract.text'), edge('extract.output->out.person')],
  });
}
