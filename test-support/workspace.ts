import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** The notes demo spec with its script inline (no delay), in a temp folder with its own sandbox copy and a data folder path beside it. */
export function tempNotesSpec(): { file: string; dir: string; workspace: string; dataDir: string; cleanup: () => void } {
  const ws = tempNotesWorkspace();
  const spec = JSON.parse(readFileSync(join(EXAMPLES, 'notes-assistant.json'), 'utf8')) as Record<string, unknown>;
  const script = JSON.parse(readFileSync(join(EXAMPLES, String(spec.script_file)), 'utf8')) as Record<string, unknown>;
  delete spec.script_file;
  spec.script = { ...script, latency_ms: 0 };
  const file = join(ws.dir, 'notes-assistant.json');
  writeFileSync(file, JSON.stringify(spec));
  return { file, dir: ws.dir, workspace: ws.workspace, dataDir: join(ws.dir, 'data'), cleanup: ws.cleanup };
}
