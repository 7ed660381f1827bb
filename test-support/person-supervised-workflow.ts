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
