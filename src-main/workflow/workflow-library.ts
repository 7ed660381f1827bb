import { workflowInterface, type WorkflowInterface } from '@shared/workflow/subworkflow';
import { HostRegistry } from '../registry/host-registry';
import type { LoadedWorkflow } from './loaded-workflow';
import { loadHostedWorkflow } from './stored-workflow';
import { WorkflowStore, WorkflowStoreError } from './workflow-store';

/** A stored workflow made runnable for a parent run (issue 29): its graph, and the version it was saved as. */
export interface LibraryWorkflow {
  loaded: LoadedWorkflow;
  name: string;
  /** Its updated_at: a node that pinned another refuses to run it. */
  version: string;
}

/**
 * The stored workflows a workflow node or workflow tool may run: the data folder's, read from disk on
 * every use (as the store is), expanded from its registry as `steward run NAME` and the host expand them.
 */
export interface WorkflowLibrary {
  /** Every readable stored workflow from outside (validation: subworkflow.ts); a damaged file is left out. */
  interfaces(): Map<string, WorkflowInterface>;
  /** Throws WorkflowStoreError, in words, when it is not stored or cannot run on this host. */
  load(id: string): LibraryWorkflow;
}

export function workflowLibrary(dataDir: string, store: WorkflowStore = new WorkflowStore(dataDir), registry: HostRegistry = new HostRegistry(dataDir)): WorkflowLibrary {
  return {
    interfaces() {
      const known = new Map<string, WorkflowInterface>();
      for (const summary of store.list()) {
        try {
          const stored = store.get(summary.id);
          if (stored) known.set(summary.id, workflowInterface(stored.workflow, stored.updated_at));
        } catch {
          // Damaged or changing: the store's list already said so; a node that runs it is told it is unknown.
        }
      }
      return known;
    },
    load(id) {
      const stored = store.get(id);
      if (!stored) throw new WorkflowStoreError('not_found', `no stored workflow "${id}" on this host (steward workflows list shows them)`);
      return { loaded: loadHostedWorkflow(stored.workflow, registry, dataDir), name: stored.workflow.name, version: stored.updated_at };
    },
  };
}
