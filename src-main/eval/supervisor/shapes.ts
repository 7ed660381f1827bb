import type { McpServerSpec } from '@shared/contracts/spec';
import type { ScriptEntry } from '@shared/contracts/script';
import { WorkflowGraph } from '@shared/workflow/document';
import { readExample } from '../eval-world';

/**
 * The three reference shapes (resources/examples: batch-fanout, paid-chain, streaming-chain), each
 * taken from its shipped example and given a probe: a tool node on a real MCP server whose every
 * execution the trace records (`tool.executed` per invocation), so a repeated effect shows.
 */

type NodeJson = Record<string, unknown> & { id: string };

function node(doc: Record<string, unknown>, id: string): NodeJson {
  const found = (doc.nodes as NodeJson[]).find((n) => n.id === id);
  if (!found) throw new Error(`the example ${String(doc.id)} has no node ${id}`);
  return structuredClone(found);
}

const edge = (from: string, to: string) => {
  const [fn = '', fp = ''] = from.split('.');
  const [tn = '', tp = ''] = to.split('.');
  return { from: { node: fn, port: fp }, to: { node: tn, port: tp } };
};

/** A case id as a workflow id (lowercase letters, digits, - and _). */
const graphId = (id: string): string => id.toLowerCase().replace(/[^a-z0-9_-]/g, '-');

/** An example made an eval graph: its own id and name, the shared servers, the nodes and edges given. */
function fromExample(doc: Record<string, unknown>, id: string, servers: McpServerSpec[], nodes: unknown[], edges?: unknown[]): WorkflowGraph {
  return WorkflowGraph.parse({ ...doc, id: graphId(id), name: `${String(doc.name)} (eval)`, workspace: undefined, servers, nodes, ...(edges ? { edges } : {}) });
}

export interface Ticket {
  id: string;
  title: string;
  body?: string;
}

/** The summary every summarize invocation replays (the example's script). */
export const FANOUT_SUMMARY = 'A user-facing problem worth a look this week.';

/** What summarize's answer must be when the case gives it an output schema: JSON with a summary. */
export const SUMMARY_SCHEMA = { type: 'object', required: ['summary'], properties: { summary: { type: 'string' } }, additionalProperties: false };
/** The answer summarize gives then: its JSON cut short (a model stopped mid-answer). */
export const CUT_SHORT_SUMMARY = `{"summary": "${FANOUT_SUMMARY}`;

/**
 * Batch fan-out: tickets → each → extract (template) → summarize (agent, replay model) → probe
 * (filesystem write_file of `<dir>/<ticket id>.txt`) → gather. A ticket without a body fails extract
 * (template_error: a poisoned item); an id that climbs out of the folder makes the probe's server refuse it.
 * `cutShort`: summarize has an output schema (SUMMARY_SCHEMA) and answers its JSON cut short, every time.
 */
export function fanoutGraph(servers: McpServerSpec[], dir: string, id: string, options: { cutShort?: boolean } = {}): WorkflowGraph {
  const doc = readExample('batch-fanout.workflow.json');
  const extract = node(doc, 'extract');
  extract.template = { id: '{{ticket.id}}', title: '{{ticket.title}}', text: '{{ticket.title}}. {{ticket.body}}' };
  const summarize = node(doc, 'summarize');
  summarize.script = { student: [{ json: { decision_type: 'complete', output: options.cutShort ? CUT_SHORT_SUMMARY : FANOUT_SUMMARY } }] };
  if (options.cutShort) summarize.output_schema = SUMMARY_SCHEMA;
  return fromExample(
    doc,
    id,
    servers,
    [
      { ...node(doc, 'input'), fields: [{ name: 'tickets', type: 'list' }] },
      // Wider than the example's 4 so 200 items take a second or two; the shape is the same.
      { ...node(doc, 'each'), concurrency: 16 },
      extract,
      summarize,
      {
        id: 'probe',
        kind: 'tool',
        server: 'fs',
        tool: 'write_file',
        inputs: [
          { name: 'ticket', type: 'any' },
          { name: 'summary', type: 'text' },
        ],
        arguments: { path: `${dir}/{{ticket.id}}.txt`, content: '{{summary}}' },
      },
      node(doc, 'gather'),
      node(doc, 'output'),
    ],
    [
      edge('input.tickets', 'each.list'),
      edge('each.item', 'extract.ticket'),
      edge('extract.output', 'summarize.ticket'),
      edge('extract.output', 'probe.ticket'),
      edge('summarize.output', 'probe.summary'),
      edge('probe.text', 'gather.item'),
      edge('gather.list', 'output.summaries'),
    ],
  );
}

/**
 * Paid chain: outline → draft → polish (agents on replay models) → publish (memory
 * create_entities: the paid effect, once). `draft`'s student answers from `draft` when given.
 */
export function chainGraph(servers: McpServerSpec[], entity: string, id: string, draft?: ScriptEntry[], brief?: string): WorkflowGraph {
  const doc = readExample('paid-chain.workflow.json');
  const draftNode = node(doc, 'draft');
  if (draft) draftNode.script = { student: draft };
  // `brief`: the chain first reads this file (filesystem read_text_file, a read) and hands it to the output.
  const reads = brief !== undefined;
  return fromExample(
    doc,
    id,
    servers,
    [
      ...(reads ? [{ id: 'brief', kind: 'tool' as const, server: 'fs', tool: 'read_text_file', arguments: { path: brief } }] : []),
      node(doc, 'input'),
      node(doc, 'outline'),
      draftNode,
      node(doc, 'polish'),
      {
        id: 'publish',
        kind: 'tool',
        server: 'memory',
        tool: 'create_entities',
        inputs: [{ name: 'text', type: 'text' }],
        arguments: { entities: [{ name: entity, entityType: 'announcement', observations: ['{{text}}'] }] },
      },
      { ...node(doc, 'output'), fields: [{ name: 'announcement', type: 'text' }, { name: 'published', type: 'text' }, ...(reads ? [{ name: 'brief', type: 'text' }] : [])] },
    ],
    [
      ...(reads ? [edge('brief.text', 'output.brief')] : []),
      edge('input.topic', 'outline.topic'),
      edge('outline.output', 'draft.outline'),
      edge('draft.output', 'polish.draft'),
      edge('polish.output', 'publish.text'),
      edge('polish.output', 'output.announcement'),
      edge('publish.text', 'output.published'),
    ],
  );
}

export interface Chunk {
  id: string;
  text: string;
}

/**
 * Streaming chain: read (a streaming tool node: filesystem read_text_file of each chunk file, in
 * order, each chunk sent on as it is read) → chunk → embed → upsert (filesystem write_file of
 * `<dir>/<chunk id>.json`, reviewed by the node's replay teacher) → stored, with no barrier between
 * the stages. The chunk files are the case's to write (`files`: their paths).
 */
export function streamGraph(servers: McpServerSpec[], dir: string, id: string, chunks: number): WorkflowGraph {
  const doc = readExample('streaming-chain.workflow.json');
  const read = node(doc, 'read');
  read.server = 'fs';
  const upsert = node(doc, 'upsert');
  upsert.server = 'fs';
  upsert.arguments = { path: `${dir}/{{record.id}}.json`, content: '{{record}}\n' };
  const accept = { json: { verdict: 'accept', reason_codes: [], explanation: 'Stores one chunk in its own file of the index folder.' } };
  upsert.review = { teacher: { provider: 'script' }, script: { teacher: Array.from({ length: chunks }, () => accept) } };
  return fromExample(doc, id, servers, [{ ...node(doc, 'input'), fields: [{ name: 'files', type: 'list' }] }, read, node(doc, 'chunk'), node(doc, 'embed'), upsert, node(doc, 'stored'), node(doc, 'output')]);
}
