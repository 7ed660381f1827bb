import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { WorkflowGraph } from '@shared/workflow/document';
import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { problemsAfterLead, schemaProblems } from '@shared/workflow/schema-problems';
import type { z } from 'zod';
import { HostRegistry } from '../registry/host-registry';
import { readJson, requireWorkspaceFolder, resolveSpec, parseWorkflow, type LoadedSpec } from '../spec/load-spec';
import { SpecError } from '../spec/spec-errors';
import { defaultDataDir } from '../util/data-dir';
import { loadHostedWorkflow } from './stored-workflow';
import { WorkflowStoreError } from './workflow-store';

import type { LoadedWorkflow } from './loaded-workflow';
export type { LoadedWorkflow } from './loaded-workflow';

/**
 * A document file: a workflow (`kind: "workflow"`) or an agent spec, which keeps its own path.
 * `app`: the workflow is in the app's format (servers and workspace registered in the data folder,
 * as the app and `steward workflows export` write it), expanded from that folder's registry.
 */
export type LoadedDocument = { kind: 'workflow'; workflow: LoadedWorkflow; app?: HostedWorkflowGraph } | { kind: 'agent'; spec: LoadedSpec };

export interface LoadOptions {
  /** The data folder whose registry an app-format workflow names (default: STEWARD_DATA_DIR, else the usual place). */
  dataDir?: string;
}

/**
 * Reads a workflow or agent spec file; throws SpecError naming the path and problem (never file
 * contents). One loader for both workflow formats, so every file the app writes or exports loads
 * here as the file format the CLI has always read does.
 */
export function loadDocumentFile(path: string, options: LoadOptions = {}): LoadedDocument {
  const abs = resolve(path);
  const specDir = dirname(abs);
  const value = readJson(abs, 'spec file');
  const kind = value !== null && typeof value === 'object' ? (value as { kind?: unknown }).kind : undefined;
  if (kind !== 'workflow') {
    const spec = resolveSpec(parseWorkflow(value, abs), specDir);
    requireWorkspaceFolder(spec.workspace, abs);
    return { kind: 'agent', spec };
  }
  if (workflowFormat(value, specDir) === 'app') {
    const parsed = HostedWorkflowGraph.safeParse(value);
    if (!parsed.success) throw new SpecError(`${abs} is not a valid Steward workflow: ${problemsInWords(value, parsed.error)}`);
    const dataDir = options.dataDir ?? defaultDataDir();
    try {
      return { kind: 'workflow', workflow: loadHostedWorkflow(parsed.data, new HostRegistry(dataDir), dataDir), app: parsed.data };
    } catch (err) {
      if (err instanceof WorkflowStoreError) throw new SpecError(`${abs} names the servers and workspace registered in ${dataDir}, and ${err.message}`);
      throw err;
    }
  }
  const parsed = WorkflowGraph.safeParse(value);
  if (!parsed.success) throw new SpecError(`${abs} is not a valid Steward workflow: ${problemsInWords(value, parsed.error)}`);
  const graph = parsed.data;
  const workspace = graph.workspace === undefined ? undefined : isAbsolute(graph.workspace) ? graph.workspace : resolve(specDir, graph.workspace);
  requireWorkspaceFolder(workspace, abs);
  return { kind: 'workflow', workflow: { graph, specDir, ...(workspace !== undefined ? { workspace } : {}) } };
}

/** The file's workflow when it is in the app's format (schema problems in words), else undefined. */
export function readAppWorkflowFile(path: string): HostedWorkflowGraph | undefined {
  const abs = resolve(path);
  const value = readJson(abs, 'spec file');
  const kind = value !== null && typeof value === 'object' ? (value as { kind?: unknown }).kind : undefined;
  if (kind !== 'workflow' || workflowFormat(value, dirname(abs)) !== 'app') return undefined;
  const parsed = HostedWorkflowGraph.safeParse(value);
  if (!parsed.success) throw new SpecError(`${abs} is not a valid Steward workflow: ${problemsInWords(value, parsed.error)}`);
  return parsed.data;
}

/**
 * Which of the two workflow formats a document is in. `cli`: servers are launches (command,
 * package, url) and the workspace a folder beside the file; `app`: servers are registered ones by
 * id (`server`) and the workspace a registered workspace's id. A document that could be either (no
 * servers) is the app's when its workspace is no folder beside the file.
 */
export function workflowFormat(value: unknown, fileDir: string): 'app' | 'cli' {
  const doc = value !== null && typeof value === 'object' ? (value as { servers?: unknown; workspace?: unknown; tool_effects?: unknown }) : {};
  const servers = Array.isArray(doc.servers) ? doc.servers.filter((s): s is object => s !== null && typeof s === 'object') : [];
  if (servers.some((s) => 'command' in s || 'package' in s || 'url' in s) || doc.tool_effects !== undefined) return 'cli';
  if (servers.some((s) => 'server' in s)) return 'app';
  if (typeof doc.workspace !== 'string') return HostedWorkflowGraph.safeParse(value).success && !WorkflowGraph.safeParse(value).success ? 'app' : 'cli';
  return existsSync(isAbsolute(doc.workspace) ? doc.workspace : resolve(fileDir, doc.workspace)) ? 'cli' : 'app';
}

function problemsInWords(value: unknown, error: z.ZodError): string {
  return problemsAfterLead(schemaProblems(value, error), 10);
}
