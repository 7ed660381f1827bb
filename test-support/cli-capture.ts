import { join } from 'node:path';
import type { RunEvent } from '../src-shared/contracts/events';
import { runCli, type CliIo } from '../src-main/shells/cli/cli';
import { EventJournal } from '../src-main/events/event-journal';
import { forwardToHost } from '../src-main/shells/cli-channel/channel-client';

/** `steward ARGV` in-process on a data folder: its exit code and everything it wrote. */
export async function cliOn(dataDir: string, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { STEWARD_DATA_DIR: dataDir } });
  return { code, stdout, stderr };
}

/** `steward ARGV` in-process with no environment (a data folder by --data-dir), and what the test gives the io (a terminal's `line`…). */
export async function cliWith(argv: string[], extra: Partial<CliIo> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {}, ...extra });
  return { code, stdout, stderr };
}

/** `steward ARGV --data-dir DIR` as the `steward` bin sends it to the app holding the data folder (`code` undefined: no app took it). */
export async function forwardedWith(argv: string[], dataDir: string): Promise<{ code: number | undefined; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await forwardToHost([...argv, '--data-dir', dataDir], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {}, cwd: process.cwd() }, dataDir);
  return { code, stdout, stderr };
}

/** Every event in a data folder's journal. */
export function journalEvents(dataDir: string): RunEvent[] {
  const journal = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
  const events = journal.read(0, 10_000).events;
  journal.close();
  return events;
}
