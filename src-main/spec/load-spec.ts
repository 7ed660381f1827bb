import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { WorkflowDocument, type AgentSpec } from '@shared/contracts/spec';
import { ModelScript } from '@shared/contracts/script';
import { JsonTooDeepError, MAX_JSON_DEPTH, jsonDepthExceeds } from '@shared/util/json-depth';
import { SpecError } from './spec-errors';
import { parseJsonText } from '@shared/util/json-syntax';
import { fileProblem } from '../util/file-problem';

/** A spec ready to run: parsed, with its script and folders resolved to absolute paths. */
export interface LoadedSpec {
  spec: AgentSpec;
  /** Folder relative paths in the spec are resolved against. */
  specDir: string;
  /** Absolute workspace folder, when the spec names one. */
  workspace?: string;
  script?: ModelScript;
}

export function formatZodIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const path = i.path.length ? i.path.join('.') : '(root)';
      return `${path}: ${i.message}`;
    })
    .join('; ');
}

export function readJson(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SpecError(code === 'ENOENT' ? `${what} not found: ${path}` : `cannot read ${what} ${path}: ${fileProblem(err)}`);
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new SpecError(`${what} ${path} is not valid JSON at ${parsed.message}`);
  // Everything after parsing recurses: a file too deep for that is refused by name, not by a stack overflow.
  if (jsonDepthExceeds(parsed.value)) throw new SpecError(`${what} ${path} is ${new JsonTooDeepError(MAX_JSON_DEPTH).message}`);
  return parsed.value;
}

/**
 * Issues about a file's contents, by path and problem: never a key or value from the file (an
 * unknown key is counted, not named; a path segment that is not the schema's own is elided), so
 * pointing Steward at a secrets file cannot echo it.
 */
export function formatFileIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 10)
    .map((i) => {
      const path = i.path.length ? i.path.map((p) => (typeof p === 'number' ? String(p) : /^[a-z_]{1,40}$/.test(String(p)) ? String(p) : '…')).join('.') : '(root)';
      if (i.code === 'unrecognized_keys') return `${path}: ${i.keys.length} unknown ${i.keys.length === 1 ? 'key' : 'keys'}`;
      if (i.code === 'custom') return `${path}: invalid value`;
      return `${path}: ${i.message}`;
    })
    .join('; ');
}

/** Parses a workflow document that came from anywhere (a file, the app); throws SpecError. */
export function parseWorkflow(value: unknown, where: string): AgentSpec {
  if (jsonDepthExceeds(value)) throw new SpecError(`${where} is ${new JsonTooDeepError(MAX_JSON_DEPTH).message}`);
  const parsed = WorkflowDocument.safeParse(value);
  if (!parsed.success) throw new SpecError(`${where} is not a valid Steward spec: ${formatZodIssues(parsed.error)}`);
  return parsed.data;
}

/** Resolves a parsed spec's workspace and script relative to `specDir`. */
export function resolveSpec(spec: AgentSpec, specDir: string): LoadedSpec {
  const workspace = spec.workspace === undefined ? undefined : isAbsolute(spec.workspace) ? spec.workspace : resolve(specDir, spec.workspace);
  let script = spec.script;
  if (spec.script_file !== undefined) {
    const path = resolve(specDir, spec.script_file);
    const parsed = ModelScript.safeParse(readJson(path, 'script file'));
    if (!parsed.success) throw new SpecError(`script file ${path} is not a Steward replay script: ${formatFileIssues(parsed.error)}`);
    script = parsed.data;
  }
  return { spec, specDir, workspace, script };
}

/**
 * A file's workspace must be a folder that exists: said here, by path, before any server is
 * started in it (the filesystem server would only say "none of the directories are accessible").
 */
export function requireWorkspaceFolder(workspace: string | undefined, file: string): void {
  if (workspace === undefined) return;
  let folder: boolean;
  try {
    folder = statSync(workspace).isDirectory();
  } catch {
    throw new SpecError(`the workspace folder ${workspace} (the "workspace" of ${file}) does not exist: create it, or point "workspace" at a folder that does`);
  }
  if (!folder) throw new SpecError(`the workspace ${workspace} (the "workspace" of ${file}) is a file, not a folder`);
}

export function loadSpecFile(path: string): LoadedSpec {
  const abs = resolve(path);
  return resolveSpec(parseWorkflow(readJson(abs, 'spec file'), abs), dirname(abs));
}
