import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { withDetails } from '@shared/contracts/code-words';
import { problemsAfterLead, schemaIssuePath, schemaProblems } from '@shared/workflow/schema-problems';
import { uniqueId, type Draft } from './graph-edit';

export type FileOutcome = { ok: true; workflow: HostedWorkflowGraph } | { ok: false; error: string };

/**
 * Reads an exported `.workflow.json`: the app's own format (servers and workspace by registered
 * id). Every refusal names the problem, so the person knows what to fix; nothing is saved then.
 */
export function parseWorkflowFile(text: string, fileName = 'the file'): FileOutcome {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    // The parser's own message (an offset, a token) stays one click away.
    return { ok: false, error: withDetails(`${fileName} is not JSON, so it is no workflow file: export one from Steward, or check the file for a missing bracket or comma.`, err instanceof Error ? err.message : String(err)) };
  }
  const parsed = HostedWorkflowGraph.safeParse(raw);
  if (parsed.success) return { ok: true, workflow: parsed.data };
  const launches = typeof raw === 'object' && raw !== null && Array.isArray((raw as { servers?: unknown }).servers)
    && (raw as { servers: unknown[] }).servers.some((s) => typeof s === 'object' && s !== null && ('package' in s || 'command' in s));
  // In the words steward validate uses for the same file (schema-problems.ts).
  const problems = schemaProblems(raw, parsed.error);
  const hint = launches
    ? ' Its servers name a package or command: that is a CLI workflow file. The app names servers registered in the MCP registry — import it with `steward workflows import`, or register its servers and export from the app.'
    : '';
  // The schema's own paths (servers.0.server) stay one click away, for whoever edits the file by hand.
  const paths = [...new Set(parsed.error.issues.map((issue) => schemaIssuePath(issue) || '(the document)'))];
  return { ok: false, error: withDetails(`${fileName} is not a Steward workflow: ${problemsAfterLead(problems, 5)}.${hint}`, `schema paths: ${paths.join(', ')}`) };
}

/** The file an export writes: the stored document, as the import reads it back. */
export function exportText(workflow: HostedWorkflowGraph): { fileName: string; text: string } {
  return { fileName: `${workflow.id}.workflow.json`, text: `${JSON.stringify(workflow, null, 2)}\n` };
}

/**
 * A new workflow: one input, one output, connected, so it is valid from the start. The output
 * stands where Auto-layout would put it (the input's 200 px and the layout's gap), so the two fit
 * the canvas at a legible zoom in a laptop's window rather than the output being cut at its edge.
 */
export function newWorkflowDraft(taken: Iterable<string>): Draft {
  return {
    format: 'steward/v1',
    kind: 'workflow',
    id: uniqueId('my-workflow', taken),
    name: 'My workflow',
    description: '',
    servers: [],
    nodes: [
      { id: 'input', kind: 'input', position: { x: 0, y: 80 }, fields: [{ name: 'text', type: 'text', required: true }] },
      { id: 'output', kind: 'output', position: { x: 280, y: 80 }, fields: [{ name: 'result', type: 'any', required: true }] },
    ],
    edges: [{ from: { node: 'input', port: 'text' }, to: { node: 'output', port: 'result' } }],
  };
}

/** A copy under a free id (`-copy`, `-copy-2`…), named as a copy. */
export function duplicateOf(workflow: HostedWorkflowGraph, taken: Iterable<string>): HostedWorkflowGraph {
  const id = uniqueId(`${workflow.id.slice(0, 58)}-copy`, taken);
  return { ...workflow, id, name: `${workflow.name.slice(0, 113)} (copy)` };
}
