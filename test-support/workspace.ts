import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const EXAMPLES = fileURLToPath(new URL('../resources/examples', import.meta.url));
export const NOTES_SANDBOX = join(EXAMPLES, 'notes-sandbox');

/** A temp folder holding a fresh copy of the demo's notes sandbox (the shipped files stay untouched). */
export function tempNotesWorkspace(): { dir: string; workspace: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'steward-test-'));
  const workspace = join(dir, 'notes-sandbox');
  cpSync(NOTES_SANDBOX, workspace, { recursive: true });
  return { dir, workspace, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
