import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { TOKEN_PATTERN } from '@shared/contracts/bridge';
import { writeFileAtomic } from '../../util/write-file-atomic';

/**
 * The browser session token belongs to the data folder, not to one launch (issue 28): a page that
 * holds it reconnects by itself when the host of the same folder comes back. It is kept in
 * `browser-token`, 0600, written whole (a temporary file renamed over it), created once. A file that
 * is not plainly the user's own token — missing, damaged, a symbolic link, another account's, or
 * readable by others — is never used: a new token replaces it (every open page then needs a new link,
 * `steward open`), and the caller says why. The folder is 0700 and the user's alone
 * (util/private-folder.ts); deleting the file signs every page out on purpose.
 */
export const TOKEN_FILE = 'browser-token';

export const tokenFile = (dataDir: string) => path.join(dataDir, TOKEN_FILE);

export type KeptToken =
  | { kind: 'kept'; token: string }
  /** `replaced`: why the file there was not used (absent when there was none). */
  | { kind: 'created'; token: string; replaced?: string }
  /** The folder could not keep it: good for this launch only. */
  | { kind: 'unkept'; token: string; problem: string };

const newToken = () => randomBytes(32).toString('base64url');

export function keptSessionToken(dataDir: string): KeptToken {
  const file = tokenFile(dataDir);
  const found = readKept(file);
  if (found.kind === 'token') return { kind: 'kept', token: found.token };
  const token = newToken();
  try {
    writeWhole(file, `${token}\n`);
  } catch (error) {
    return { kind: 'unkept', token, problem: `could not keep the access token in ${file} (${error instanceof Error ? error.message : String(error)})` };
  }
  return found.kind === 'none' ? { kind: 'created', token } : { kind: 'created', token, replaced: found.why };
}

type Found = { kind: 'token'; token: string } | { kind: 'none' } | { kind: 'unusable'; why: string };

function readKept(file: string): Found {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    return { kind: 'unusable', why: `it could not be read (${(error as Error).message})` };
  }
  if (stat.isSymbolicLink()) return { kind: 'unusable', why: 'it was a symbolic link' };
  if (!stat.isFile()) return { kind: 'unusable', why: 'it was not a file' };
  if (process.platform !== 'win32') {
    if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) return { kind: 'unusable', why: 'it belonged to another account' };
    if ((stat.mode & 0o077) !== 0) return { kind: 'unusable', why: `other accounts could read it (mode 0${(stat.mode & 0o777).toString(8)})` };
  }
  let text: string;
  try {
    // Opened without following a link that appeared since the lstat.
    const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    try {
      text = fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    return { kind: 'unusable', why: `it could not be read (${(error as Error).message})` };
  }
  const token = text.trim();
  if (!TOKEN_PATTERN.test(token) || text !== `${token}\n`) return { kind: 'unusable', why: 'it did not hold a token' };
  return { kind: 'token', token };
}

/** A temporary file of its own, synced, then renamed over the old name (a link there is replaced, never followed). */
function writeWhole(file: string, text: string): void {
  writeFileAtomic(file, (write) => write(text));
}
