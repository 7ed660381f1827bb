import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { RequestError } from './request-error';

/** Folders inside the data folder a workspace may be in without asking: the demo copies, and new ones. */
export const DATA_FOLDER_WORKSPACE_ROOTS = ['demo', 'workspaces'] as const;

export type WorkspacePlace = { path: string; in_data_folder: boolean };

function within(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Where a folder to register is, by its real path (symlinks resolved, so a link inside the data
 * folder cannot stand for a folder outside it). A folder that holds the data folder is refused: an
 * agent working there could rewrite Steward's own registry and audit log.
 */
export function placeWorkspace(path: string, dataDir: string): WorkspacePlace {
  if (!isAbsolute(path)) throw new RequestError('invalid_params', `the workspace folder must be an absolute path`);
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw new RequestError('invalid_params', `the workspace folder ${path} does not exist`);
  }
  if (!statSync(real).isDirectory()) throw new RequestError('invalid_params', `${path} is not a folder`);
  const data = realpathSync(dataDir);
  if (within(real, data)) {
    throw new RequestError('invalid_params', `${path} contains Steward's data folder; pick a folder inside it (under ${join(data, 'workspaces')}) or elsewhere`);
  }
  if (within(data, real)) {
    const ok = DATA_FOLDER_WORKSPACE_ROOTS.some((root) => within(join(data, root), real) && real !== join(data, root));
    if (!ok) throw new RequestError('invalid_params', `inside the data folder, a workspace goes under ${join(data, 'workspaces')}`);
    return { path: real, in_data_folder: true };
  }
  return { path: real, in_data_folder: false };
}
