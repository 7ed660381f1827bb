import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { RegistryId } from '@shared/contracts/host-registry';
import { checkHostedGraph } from '@shared/workflow/check-hosted-graph';
import { HostedWorkflowGraph } from '@shared/workflow/hosted-graph';
import { formatGraphProblem } from '@shared/workflow/validate-graph';
import { HostRegistry } from '../../registry/host-registry';
import { formatFileIssues, readJson } from '../../spec/load-spec';
import { SpecError } from '../../spec/spec-errors';
import { defaultDataDir } from '../../util/data-dir';
import { fileProblem } from '../../util/file-problem';
import { writeFileAtomic } from '../../util/write-file-atomic';
import type { LoadedDocument } from '../../workflow/load-workflow';
import { loadStoredWorkflow } from '../../workflow/stored-workflow';
import { WorkflowStore, WorkflowStoreError } from '../../workflow/workflow-store';
import type { CliIo, EXIT } from './cli-io';
import { typedPath } from './typed-path';
import { wrapUsage } from '@shared/util/wrap-usage';

// Type-only link to cli.ts (which imports this file): the codes are checked equal to EXIT at compile time.
const CODE = { ok: 0, notFound: 1, badInput: 2 } as const satisfies { ok: (typeof EXIT)['ok']; notFound: (typeof EXIT)['runNotCompleted']; badInput: (typeof EXIT)['badInput'] };

export const WORKFLOWS_USAGE = wrapUsage(`Usage:
  steward workflows list [--json]                      the workflows stored in the data folder
  steward workflows import FILE [--as ID] [--replace]  store a workflow file (as the app exports it)
  steward workflows export ID [-o, --output FILE]      write a stored workflow to FILE (or stdout)
  steward workflows delete ID                          remove a stored workflow
  (each takes --data-dir DIR; default STEWARD_DATA_DIR, else the platform's usual place)

These are the workflows the app shows: it and the CLI keep them in the same data folder.
steward run NAME runs the stored workflow NAME.
Exit codes: 0 done · 1 export/delete: no such workflow · 2 bad input`);

function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  try {
    return parseArgs({ args, options: { ...options, 'data-dir': { type: 'string' } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new SpecError(`${(err as Error).message}\n\n${WORKFLOWS_USAGE}`);
  }
}

const dataDirOf = (values: { 'data-dir'?: unknown }, io: CliIo): string => (io.hosted ? io.hosted.dataDir : typeof values['data-dir'] === 'string' ? typedPath(io, values['data-dir']) : defaultDataDir(io.env));
const storeIn = (dataDir: string, io: CliIo): WorkflowStore => new WorkflowStore(dataDir, (line) => io.stderr(`steward: ${line}\n`));

/** `steward workflows …`. Returns the exit code; a refusal is a message on stderr. */
export async function workflowsCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  try {
    switch (sub) {
      case 'list':
        return listCommand(rest, io);
      case 'import':
        return importCommand(rest, io);
      case 'export':
        return exportCommand(rest, io);
      case 'delete':
        return deleteCommand(rest, io);
      case '--help':
      case '-h':
      case 'help':
        io.stdout(`${WORKFLOWS_USAGE}\n`);
        return CODE.ok;
      default:
        io.stderr(`steward workflows: ${sub === undefined ? 'which subcommand?' : `unknown subcommand "${sub}"`}\n\n${WORKFLOWS_USAGE}\n`);
        return CODE.badInput;
    }
  } catch (err) {
    io.stderr(`steward workflows: ${err instanceof Error ? err.message : String(err)}\n`);
    return CODE.badInput;
  }
}

function oneId(positionals: string[], what: string, extra = 0): string {
  const [id] = positionals;
  if (id === undefined || positionals.length > 1 + extra) throw new SpecError(`${what}\n\n${WORKFLOWS_USAGE}`);
  if (!RegistryId.safeParse(id).success) throw new SpecError(`"${id.slice(0, 80)}" is not a workflow id (lowercase letters, digits, - and _)`);
  return id;
}

function listCommand(args: string[], io: CliIo): number {
  const { values, positionals } = parse(args, { json: { type: 'boolean', default: false } });
  if (positionals.length > 0) throw new SpecError(`list takes no arguments\n\n${WORKFLOWS_USAGE}`);
  const dataDir = dataDirOf(values, io);
  const list = storeIn(dataDir, io).list();
  if (values.json === true) {
    io.stdout(`${JSON.stringify(list, null, 2)}\n`);
    return CODE.ok;
  }
  if (list.length === 0) {
    io.stdout(`no workflows stored in ${dataDir} (steward workflows import FILE adds one)\n`);
    return CODE.ok;
  }
  const rows = [['ID', 'NAME', 'NODES', 'UPDATED'], ...list.map((w) => [w.id, w.name, String(w.node_count), w.updated_at.replace(/\.\d+Z$/, 'Z')])];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const row of rows) io.stdout(`${row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ')}\n`);
  return CODE.ok;
}

/** A file in the CLI's own format names launches (command/package) and a folder; the data folder's names registered ones. */
function refuseCliFormat(value: unknown, file: string): void {
  if (value === null || typeof value !== 'object') return;
  const doc = value as { kind?: unknown; servers?: unknown };
  if (doc.kind !== 'workflow') throw new SpecError(`${file} is not a workflow (kind "workflow"); an agent spec runs with steward run FILE`);
  const launches = Array.isArray(doc.servers)
    ? doc.servers.filter((s): s is { id?: unknown } => s !== null && typeof s === 'object' && ('command' in s || 'package' in s)).map((s) => (typeof s.id === 'string' ? s.id : '?'))
    : [];
  if (launches.length > 0) {
    throw new SpecError(
      `${file} is a workflow for steward run FILE: its server(s) ${launches.join(', ')} name a command or package. ` +
        `The data folder keeps only registered servers: register them (the app's MCP registry) and reference them by id, ` +
        `e.g. "servers": [{"id": "${launches[0]}", "server": "filesystem"}]; a workspace is a registered workspace's id, not a path`,
    );
  }
}

function importCommand(args: string[], io: CliIo): number {
  const { values, positionals } = parse(args, { as: { type: 'string' }, replace: { type: 'boolean', default: false } });
  const [file] = positionals;
  if (file === undefined || positionals.length > 1) throw new SpecError(`import needs exactly one FILE\n\n${WORKFLOWS_USAGE}`);
  const value = readJson(resolve(typedPath(io, file)), 'workflow file');
  refuseCliFormat(value, file);
  const as = values.as;
  if (typeof as === 'string' && !RegistryId.safeParse(as).success) throw new SpecError(`--as "${as.slice(0, 80)}" is not a workflow id (lowercase letters, digits, - and _)`);
  const parsed = HostedWorkflowGraph.safeParse(typeof as === 'string' ? { ...(value as object), id: as } : value);
  if (!parsed.success) throw new SpecError(`${file} is not a Steward workflow: ${formatFileIssues(parsed.error)}`);
  const workflow = parsed.data;
  const dataDir = dataDirOf(values, io);
  const store = storeIn(dataDir, io);
  const taken = existsSync(store.path(workflow.id));
  if (taken && values.replace !== true) throw new SpecError(`a workflow "${workflow.id}" is already stored; add --replace to overwrite it, or --as ID to store this one under another id`);
  store.save(workflow);
  io.stdout(`${taken ? 'replaced' : 'imported'} ${workflow.id} · ${workflow.name} · ${workflow.nodes.length} node(s)\n`);
  const registry = new HostRegistry(dataDir);
  const problems = checkHostedGraph(workflow, { servers: registry.servers(), workspaces: registry.workspaces() });
  if (problems.length > 0) {
    io.stdout(`it cannot run on this data folder yet (${problems.length} problem(s)):\n${problems.map((p) => `  ${formatGraphProblem(p)}\n`).join('')}`);
  }
  return CODE.ok;
}

function exportCommand(args: string[], io: CliIo): number {
  const { values, positionals } = parse(args, { output: { type: 'string', short: 'o' } });
  // `-o FILE` as every other export takes it; a second positional (the older form) still names the file.
  const id = oneId(positionals, 'export needs a workflow ID and at most one FILE (-o FILE)', 1);
  if (positionals[1] !== undefined && values.output !== undefined) throw new SpecError(`export takes its FILE once: -o ${values.output} or ${positionals[1]}\n\n${WORKFLOWS_USAGE}`);
  const stored = storeIn(dataDirOf(values, io), io).get(id);
  if (!stored) {
    io.stderr(`steward workflows: no stored workflow "${id}" (steward workflows list)\n`);
    return CODE.notFound;
  }
  const text = `${JSON.stringify(stored.workflow, null, 2)}\n`;
  const file = values.output ?? positionals[1];
  if (file === undefined || file === '-') {
    io.stdout(text);
    return CODE.ok;
  }
  try {
    // A file a person keeps: readable as any file they write (umask applies), never half written.
    writeFileAtomic(typedPath(io, file), (write) => write(text), 0o666);
  } catch (err) {
    throw new SpecError(`cannot write ${file}: ${fileProblem(err, 'write')}; nothing was exported`);
  }
  io.stdout(`exported ${id} to ${file}\n`);
  return CODE.ok;
}

function deleteCommand(args: string[], io: CliIo): number {
  const { values, positionals } = parse(args, {});
  const id = oneId(positionals, 'delete needs exactly one workflow ID');
  if (!storeIn(dataDirOf(values, io), io).delete(id)) {
    io.stderr(`steward workflows: no stored workflow "${id}" (steward workflows list)\n`);
    return CODE.notFound;
  }
  io.stdout(`deleted ${id}\n`);
  return CODE.ok;
}

/**
 * The hosts a run of a stored workflow may send data to: the data folder's privacy policy (the one
 * the host runs the app's workflows under), plus each `--allow-host` given for this run.
 */
export function storedRunHosts(dataDir: string, allowHosts: readonly string[]): string[] {
  return [...new Set([...new HostRegistry(dataDir).privacy().allowed_hosts, ...allowHosts])];
}

/**
 * `steward run NAME`: the stored workflow NAME, expanded from the data folder's registry exactly as
 * the host expands it for workflows.run. A problem is a SpecError naming it.
 */
/** The name of the workflow stored under `id`, undefined when there is none (or it cannot be read: nothing to tell apart then). */
export function storedWorkflowName(id: string, dataDir: string): string | undefined {
  try {
    return new WorkflowStore(dataDir).get(id)?.workflow.name;
  } catch {
    return undefined;
  }
}

export function storedDocument(name: string, dataDir: string): LoadedDocument {
  const store = new WorkflowStore(dataDir);
  try {
    if (!store.get(name)) throw new SpecError(`no file ${name} and no stored workflow "${name}" in ${dataDir} (steward workflows list)`);
    return { kind: 'workflow', workflow: loadStoredWorkflow(store, name, new HostRegistry(dataDir), dataDir) };
  } catch (err) {
    if (err instanceof WorkflowStoreError) throw new SpecError(err.message);
    throw err;
  }
}
