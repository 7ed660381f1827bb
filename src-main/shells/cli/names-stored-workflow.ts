import { statSync } from 'node:fs';
import { RegistryId } from '@shared/contracts/host-registry';

/**
 * Whether `steward run|validate NAME` means the workflow stored in the data folder (the app's) rather
 * than a file: NAME is a workflow id and no file is there. A folder of that name (a project's `notes/`
 * beside the stored workflow `notes`) is no spec file, so it does not hide the stored workflow.
 */
export function namesStoredWorkflow(typed: string, path: string): boolean {
  if (!RegistryId.safeParse(typed).success) return false;
  return statSync(path, { throwIfNoEntry: false })?.isFile() !== true;
}
