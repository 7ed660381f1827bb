import { homedir } from 'node:os';
import { join } from 'node:path';

/** The user-data folder: STEWARD_DATA_DIR, else the platform's usual place. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.STEWARD_DATA_DIR) return env.STEWARD_DATA_DIR;
  switch (process.platform) {
    case 'darwin':
      return join(homedir(), 'Library', 'Application Support', 'Steward');
    case 'win32':
      return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Steward');
    default:
      return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'steward');
  }
}
