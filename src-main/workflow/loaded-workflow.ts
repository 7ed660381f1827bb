import type { WorkflowGraph } from '@shared/workflow/document';

/** A workflow ready to run: parsed, its workspace resolved against its file's folder. */
export interface LoadedWorkflow {
  graph: WorkflowGraph;
  specDir: string;
  workspace?: string;
}

