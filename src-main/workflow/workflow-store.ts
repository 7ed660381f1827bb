import { mkdirSync, readdirSync, statSync, unlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { RegistryId } from '@shared/contracts/host-registry';
import { HostedWorkflowGraph, type WorkflowSummary } from '@shared/workflow/hosted-graph';
import { RegistryFileError, readJsonFile, writeJsonAtomic } from '../registry/json-store';
import { formatFileIssues } from '../spec/load-spec';

const FOLDER = 'workflows';
const SUFFIX = '.workflow.json';

/** What the store refuses; the host turns the code into its error code (a damaged file is a host error). */
export class WorkflowStoreError extends Error {
  override readonly name = 'WorkflowStoreError';
  constructor(
    readonly code: 'conflict' | 'not_found' | 'invalid_params' | 'damaged',
    message: string,
  ) {
    super(message);
  }
}

export interface StoredWorkflow {
  workflow: HostedWorkflowGraph;
  updated_at: string;
}

export interface SaveOptions {
  /** The id it was stored under before: a rename removes that file. */
  replaces?: string;
  /** The updated_at the saver loaded: refused when the stored file changed since. */
  ifUpdatedAt?: string;
}

/**
 * The user's workflow graphs in the data folder, one `workflows/<id>.workflow.json` each, holding
 * exactly the hosted graph (the export format, so a file can be copied in or out by hand). Read
 * from disk on every use: a CLI import is seen by a running host at once.
 *
 * updated_at is the file's modification time, not a sidecar: it is one file to keep consistent
 * (no sidecar to lose or leave behind on a rename or hand copy), and a hand edit or a copy made by
 * another process counts as a change, which is what a conflict check must catch. Each save sets it
 * explicitly, past the previous one, so two saves in one millisecond still differ. The check and
 * the write are not one atomic step across processes; two savers racing within that gap is the
 * case left open (the later write wins, as it would without the check).
 */
export class WorkflowStore {
  private readonly dir: string;

  constructor(
    dataDir: string,
    private readonly log: (line: string) => void = () => undefined,
  ) {
    this.dir = join(dataDir, FOLDER);
  }

  list(): WorkflowSummary[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const summaries: WorkflowSummary[] = [];
    for (const name of names) {
      if (!name.endsWith(SUFFIX)) continue;
      const id = name.slice(0, -SUFFIX.length);
      if (!RegistryId.safeParse(id).success) {
        this.log(`workflows: skipped ${join(this.dir, name)}: its name is not a workflow id (lowercase letters, digits, - and _)`);
        continue;
      }
      try {
        const stored = this.get(id);
        if (!stored) continue; // deleted while listing
        const { workflow: w, updated_at } = stored;
        summaries.push({ id, name: w.name, description: w.description, node_count: w.nodes.length, updated_at });
      } catch (err) {
        this.log(`workflows: skipped ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return summaries.sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || a.id.localeCompare(b.id));
  }

  /** The stored workflow, undefined when there is none; a damaged file throws (code `damaged`). */
  get(id: string): StoredWorkflow | undefined {
    const path = this.path(id);
    // The time is read on both sides of the read: a save in between would pair new content's
    // check with old content, so the read is taken again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = stamp(path);
      if (before === undefined) return undefined;
      let workflow: HostedWorkflowGraph | undefined;
      try {
        workflow = readJsonFile(path, HostedWorkflowGraph.optional(), undefined);
      } catch (err) {
        if (err instanceof RegistryFileError) throw new WorkflowStoreError('damaged', err.message);
        throw err;
      }
      if (!workflow) return undefined;
      if (workflow.id !== id) throw new WorkflowStoreError('damaged', `${path} holds workflow "${workflow.id}"; rename the file to ${workflow.id}${SUFFIX} or import it with steward workflows import`);
      if (stamp(path) === before) return { workflow, updated_at: before };
    }
    throw new WorkflowStoreError('conflict', `workflow "${id}" is being changed by another process; try again`);
  }

  save(doc: HostedWorkflowGraph, options: SaveOptions = {}): { id: string; updated_at: string } {
    const parsed = HostedWorkflowGraph.safeParse(doc);
    if (!parsed.success) throw new WorkflowStoreError('invalid_params', `not a Steward workflow: ${formatFileIssues(parsed.error)}`);
    const workflow = parsed.data;
    const target = this.path(workflow.id);
    const previousId = options.replaces ?? workflow.id;
    const previous = this.path(previousId);
    if (options.ifUpdatedAt !== undefined) {
      const current = stamp(previous);
      if (current === undefined) throw new WorkflowStoreError('not_found', `workflow "${previousId}" was deleted since it was opened; save it again as a new workflow`);
      if (current !== options.ifUpdatedAt) throw new WorkflowStoreError('conflict', `workflow "${previousId}" was changed since it was opened (saved ${current}); reload it and make your change again`);
    }
    const renaming = options.replaces !== undefined && options.replaces !== workflow.id;
    if (renaming && stamp(target) !== undefined) {
      throw new WorkflowStoreError('conflict', `a workflow "${workflow.id}" is already stored; pick another id or delete that one first`);
    }
    mkdirSync(this.dir, { recursive: true });
    const last = Math.max(stampMs(target) ?? 0, renaming ? (stampMs(previous) ?? 0) : 0);
    writeJsonAtomic(target, workflow);
    const next = new Date(Math.max(Date.now(), last + 1));
    utimesSync(target, next, next);
    if (renaming) remove(previous);
    return { id: workflow.id, updated_at: stamp(target) ?? next.toISOString() };
  }

  /** True when there was a file to remove. */
  delete(id: string): boolean {
    return remove(this.path(id));
  }

  /** The file a workflow id is kept in; an id that is not a registry id never becomes a path. */
  path(id: string): string {
    if (!RegistryId.safeParse(id).success) throw new WorkflowStoreError('invalid_params', `"${id.slice(0, 80)}" is not a workflow id (lowercase letters, digits, - and _)`);
    return join(this.dir, `${id}${SUFFIX}`);
  }
}

/** The file's modification time in whole milliseconds (utimes goes through floating seconds). */
function stampMs(path: string): number | undefined {
  try {
    return Math.round(statSync(path).mtimeMs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function stamp(path: string): string | undefined {
  const ms = stampMs(path);
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

function remove(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}
