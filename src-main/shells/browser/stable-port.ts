import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../util/write-file-atomic';

/**
 * The browser shell's origin is part of the app's identity: IndexedDB (the page's index of the
 * host's journal) and every bookmark or link are per origin. So without --port a data folder keeps
 * the port its first start used, in `<data>/browser-port`.
 */

/** Tried by a data folder's first start; any free port when it is taken. */
export const DEFAULT_BROWSER_PORT = 47800;
export const PORT_FILE = 'browser-port';

export function rememberedPort(dataDir: string): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dataDir, PORT_FILE), 'utf8').trim();
  } catch {
    return undefined;
  }
  const port = Number(text);
  // A damaged file is no promise to keep: the next start picks and remembers again.
  return /^\d+$/.test(text) && port >= 1 && port <= 65535 ? port : undefined;
}

/** Written atomically (temp + rename), so a crash never leaves half a number behind. */
export function rememberPort(dataDir: string, port: number): void {
  writeFileAtomic(path.join(dataDir, PORT_FILE), (write) => write(`${port}\n`), 0o666);
}

export function isAddressInUse(error: unknown): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
}

/** What a person can do when the remembered port is taken: free it, or choose another knowingly. */
export function portTakenMessage(dataDir: string, port: number): string {
  return (
    `127.0.0.1:${port}, the port this data folder's Steward always uses (${path.join(dataDir, PORT_FILE)}), is taken by another program. ` +
    `Stop that program, or start Steward with --port N to use another port: the app's address changes with it, so bookmarks ` +
    `and links to the old one stop working (the run history is loaded again from the data folder).`
  );
}
