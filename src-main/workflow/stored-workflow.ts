import { checkHostedGraph } from '@shared/workflow/check-hosted-graph';
import { formatGraphProblem } from '@shared/workflow/validate-graph';
import { expandHostedGraph } from '@shared/policy/expand-workflow';
import type { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import type { HostRegistry } from '../registry/host-registry';
import type { LoadedWorkflow } from './loaded-workflow';
import { WorkflowStoreError, type WorkflowStore } from './workflow-store';

/**
 * A stored workflow made runnable from this data folder's registry, the same for the host
 * (workflows.run) and the CLI (`steward run NAME`): every problem of the graph and its registry
 * references refuses it by name; its relative paths resolve against the data folder.
 */
export function loadStoredWorkflow(store: WorkflowStore, id: string, registry: HostRegistry, dataDir: string): LoadedWorkflow {
  const stored = store.get(id);
  if (!stored) throw new WorkflowStoreError('not_found', `no stored workflow "${id}"`);
  return loadHostedWorkflow(stored.workflow, registry, dataDir);
}

/**
 * An app workflow document (stored, or a file the app exported) made runnable from this data
 * folder's registry; the one expansion `steward run`, `steward validate` and the host use.
 */
export function loadHostedWorkflow(doc: HostedWorkflowGraph, registry: HostRegistry, dataDir: string): LoadedWorkflow {
  const { id } = doc;
  const view = { servers: registry.servers(), workspaces: registry.workspaces(), overrides: registry.effects() };
  const problems = checkHostedGraph(doc, view);
  if (problems.length > 0) {
    throw new WorkflowStoreError('invalid_params', `workflow "${id}" cannot run; it has ${problems.length} problem(s): ${problems.map(formatGraphProblem).join('; ')}`);
  }
  const expanded = expandHostedGraph(doc, view);
  if (!expanded.ok) throw new WorkflowStoreError(expanded.kind === 'unregistered' ? 'not_found' : 'invalid_params', `workflow "${id}" cannot run: ${expanded.message}`);
  return { graph: expanded.graph, specDir: dataDir, ...(expanded.workspace !== undefined ? { workspace: expanded.workspace } : {}) };
}
