import { mkdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { RegistryId } from '@shared/contracts/host-registry';
import { WorkflowDraft, type UnparsedText } from '@shared/contracts/workflow-draft';
import { RegistryFileError, readJsonFile, writeJsonAtomic } from '../registry/json-store';

const FOLDER = 'workflow-drafts';
/** A new workflow's draft: no workflow id starts with `_`, so it never meets a stored one's. */
const NEW = '_new';

/**
 * The editor's unsaved work, one `workflow-drafts/<id>.json` per stored workflow (`_new.json` for
 * one never saved), written atomically: a reload, a crash of the page or of the host loses at most
 * the last keystrokes before the page sent them. Kept until the person saves or discards.
 */
export class WorkflowDraftStore {
  private readonly dir: string;

  constructor(
    dataDir: string,
    private readonly log: (line: string) => void = () => undefined,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.dir = join(dataDir, FOLDER);
  }

  /** The kept draft; a damaged file is logged and treated as none (a draft never blocks editing). */
  get(workflowId: string | undefined): WorkflowDraft | undefined {
    try {
      return readJsonFile(this.path(workflowId), WorkflowDraft.optional(), undefined);
    } catch (err) {
      if (!(err instanceof RegistryFileError)) throw err;
      this.log(`workflow drafts: ignored ${err.message}`);
      return undefined;
    }
  }

  /** `unparsed`: the JSON fields' typed text the document does not hold yet, kept with it (issue 28). */
  put(workflowId: string | undefined, document: Record<string, unknown>, baseUpdatedAt?: string, unparsed?: readonly UnparsedText[]): WorkflowDraft {
    const draft = WorkflowDraft.parse({
      ...(workflowId !== undefined ? { workflow_id: workflowId } : {}),
      document,
      ...(baseUpdatedAt !== undefined ? { base_updated_at: baseUpdatedAt } : {}),
      ...(unparsed !== undefined && unparsed.length > 0 ? { unparsed } : {}),
      saved_at: this.now().toISOString(),
    });
    mkdirSync(this.dir, { recursive: true });
    writeJsonAtomic(this.path(workflowId), draft);
    return draft;
  }

  /** True when there was a draft to forget. */
  discard(workflowId: string | undefined): boolean {
    try {
      unlinkSync(this.path(workflowId));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  /** Only a workflow id (or the new workflow's slot) ever becomes a file name. */
  private path(workflowId: string | undefined): string {
    if (workflowId === undefined) return join(this.dir, `${NEW}.json`);
    return join(this.dir, `${RegistryId.parse(workflowId)}.json`);
  }
}
