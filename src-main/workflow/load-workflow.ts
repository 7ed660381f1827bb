import { dirname, isAbsolute, resolve } from 'node:path';
import { WorkflowGraph } from '@shared/workflow/document';
import { formatFileIssues, readJson, requireWorkspaceFolder, resolveSpec, parseWorkflow, type LoadedSpec } from '../spec/load-spec';
import { SpecError } from '../spec/spec-errors';

/** A workflow ready to run: parsed, its workspace resolved against its file's folder. */
export interface LoadedWorkflow {
  graph: WorkflowGraph;
  specDir: string;
  workspace?: string;
}

/** A document file: a workflow (`kind: "workflow"`) or an agent spec, which keeps its own path. */
export type LoadedDocument = { kind: 'workflow'; workflow: LoadedWorkflow } | { kind: 'agent'; spec: LoadedSpec };

/** Reads a workflow or agent spec file; throws SpecError naming the path and problem (never file contents). */
export function loadDocumentFile(path: string): LoadedDocument {
  const abs = resolve(path);
  const specDir = dirname(abs);
  const value = readJson(abs, 'spec file');
  const kind = value !== null && typeof value === 'object' ? (value as { kind?: unknown }).kind : undefined;
  if (kind !== 'workflow') {
    const spec = resolveSpec(parseWorkflow(value, abs), specDir);
    requireWorkspaceFolder(spec.workspace, abs);
    return { kind: 'agent', spec };
  }
  const parsed = WorkflowGraph.safeParse(value);
  if (!parsed.success) throw new SpecError(`${abs} is not a valid Steward workflow: ${formatFileIssues(parsed.error)}`);
  const graph = parsed.data;
  const workspace = graph.workspace === undefined ? undefined : isAbsolute(graph.workspace) ? graph.workspace : resolve(specDir, graph.workspace);
  requireWorkspaceFolder(workspace, abs);
  return { kind: 'workflow', workflow: { graph, specDir, ...(workspace !== undefined ? { workspace } : {}) } };
}
