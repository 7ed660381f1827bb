import { z } from 'zod';
import { HostedServerRef } from '../contracts/hosted-workflow';
import { RegistryId } from '../contracts/host-registry';
import { GRAPH_FIELDS, refineUniqueIds } from './document';

/**
 * A workflow graph as the app and the host's data folder keep it (issue 8). Like the page's agent
 * workflow (hosted-workflow.ts) it names no command, package, path or tool effect: servers and the
 * workspace are registered on the host and referenced by id, and the host expands it
 * (expandHostedGraph) into a runnable WorkflowGraph. This is also the export/import file format.
 */
export const HostedWorkflowGraph = z
  .object({
    ...GRAPH_FIELDS,
    /** A registered workspace's id (workspaces.list), never a path. */
    workspace: RegistryId.optional(),
    /** Registered servers by id, under the name the workflow's nodes use. */
    servers: z.array(HostedServerRef).default([]),
  })
  .strict()
  .superRefine(refineUniqueIds);
export type HostedWorkflowGraph = z.infer<typeof HostedWorkflowGraph>;
export type HostedWorkflowGraphInput = z.input<typeof HostedWorkflowGraph>;

/** One stored workflow as a list shows it. */
export const WorkflowSummary = z
  .object({
    id: RegistryId,
    name: z.string(),
    description: z.string(),
    node_count: z.number().int().nonnegative(),
    updated_at: z.string(),
  })
  .strict();
export type WorkflowSummary = z.infer<typeof WorkflowSummary>;

/** A graph problem as it crosses a process boundary (validate-graph.ts makes them). */
export const GraphProblemRecord = z
  .object({
    node: z.string().optional(),
    port: z.string().optional(),
    edge: z.number().int().nonnegative().optional(),
    code: z.string(),
    message: z.string(),
  })
  .strict();

/** The run's input values, by input field name (checked against the input node on the host). */
export const WorkflowInputs = z.record(z.string().max(64), z.unknown());
