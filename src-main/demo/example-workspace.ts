import { cpSync, existsSync, mkdirSync, realpathSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { appRoot } from '../util/app-root';

export const examplesDir = (): string => join(appRoot(), 'resources', 'examples');

/** The real path when there is one (a symlinked checkout or temp folder compares equal), else the absolute one. */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** `inner` is `outer` or somewhere below it. */
function inside(outer: string, inner: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (!isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

/**
 * The data folder's copy of a shipped example's workspace: `demo/<id>/<folder>`, the same folder the
 * app's demo uses, made once and then reused (what earlier runs wrote stays, as in the app). A shipped
 * file the copy lacks is copied in each time, never over a file that is there: a copy made by an
 * older version gets what a newer example needs (the streaming chain's `document/` chunks).
 */
export function exampleWorkspaceCopy(dataDir: string, id: string, workspace: string): { path: string; made: boolean } {
  const path = join(dataDir, 'demo', id, relative(real(examplesDir()), real(workspace)));
  const made = !existsSync(path);
  if (made) mkdirSync(path, { recursive: true });
  cpSync(workspace, path, { recursive: true, errorOnExist: false, force: false });
  return { path, made };
}

/**
 * A spec or workflow read from the shipped examples folder runs on the data folder's copy of its
 * workspace, as the app runs its demos, so a run never writes into the installation (or a checkout
 * of the repository). Any other file keeps its own workspace. `notice` gets one line: where the copy is.
 */
export function onExampleCopy<T extends { workspace?: string }>(loaded: T, id: string, file: string, dataDir: string, notice: (line: string) => void): T {
  const examples = real(examplesDir());
  const source = loaded.workspace;
  if (source === undefined || !inside(examples, real(file)) || !inside(examples, real(source))) return loaded;
  const copy = exampleWorkspaceCopy(dataDir, id, source);
  notice(
    copy.made
      ? `${id} is a shipped example: it works on a copy of ${basename(source)} made in the data folder, ${copy.path} (later runs reuse it; the shipped folder is never written)`
      : `${id} is a shipped example: it works on its copy of ${basename(source)} in the data folder, ${copy.path}, as earlier runs left it (delete that folder for a fresh copy)`,
  );
  return { ...loaded, workspace: copy.path };
}
