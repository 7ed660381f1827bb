import { MAX_DELETE_RUNS } from '@shared/contracts/host-api';
import type { RunEvent } from '@shared/contracts/events';
import { checkTraceFiles, traceProblemMessage, type TraceEntry } from '@shared/history/check-trace';
import type { ImportCounts } from '@shared/history/import-summary';
import type { StewardDb } from '../../db/db';
import { deleteRuns } from '../../db/delete-runs';
import { HostRequestError, type HostClient } from '../../host/host-client';
import { importChunks } from './runs-jsonl';

/** What an import did (ImportCounts: importSummary says it), or why nothing (more) was imported. */
export type ImportOutcome = ({ ok: true } & Required<ImportCounts>) | { ok: false; message: string };

/**
 * Imports JSONL trace files (exports of this page, CLI --trace files) through the host's journal:
 * every line of every file is checked first, as the CLI checks it (check-trace.ts), and one bad
 * line imports nothing. Then the events go in requests under the transport's size limit; the page
 * receives them back as any other events. The host checks each request against its history too:
 * an event that contradicts it stops the import there.
 */
export async function importTraceFiles(
  client: Pick<HostClient, 'request'>,
  files: ReadonlyArray<{ name: string; text: string }>,
  onProgress: (done: number, total: number) => void = () => undefined,
): Promise<ImportOutcome> {
  const checked = checkTraceFiles(files);
  if (!checked.ok) return { ok: false, message: `${checked.message}. Nothing was imported.` };
  // Each file's events in requests of their own, so a request too big names its file's line.
  const byFile: Array<{ file: string; entries: TraceEntry[] }> = [];
  for (const entry of checked.entries) {
    const last = byFile.at(-1);
    if (last?.file === entry.at.file) last.entries.push(entry);
    else byFile.push({ file: entry.at.file, entries: [entry] });
  }
  const chunks: RunEvent[][] = [];
  for (const { file, entries } of byFile) {
    const split = importChunks(entries.map((e) => e.event), {}, entries.map((e) => e.at.line));
    if (!split.ok) return { ok: false, message: `${traceProblemMessage({ file, line: split.line }, split.problem)}. Nothing was imported.` };
    chunks.push(...split.chunks);
  }
  // One import for all the files: a run split across requests (or files) comes in whole.
  const importId = `${(files[0]?.name ?? 'import').slice(0, 60)}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  const counts = { imported: 0, repeated: 0, held: 0 };
  onProgress(0, chunks.length);
  for (const [done, events] of chunks.entries()) {
    try {
      const result = await client.request('runs.import', { import_id: importId, events });
      counts.imported += result.imported;
      counts.repeated += result.repeated;
      counts.held += result.held;
    } catch (err) {
      // The host refused a request for what its history holds (another event under an id or at a place): its words name the run and seq.
      if (!(err instanceof HostRequestError) || (err.code !== 'conflict' && err.code !== 'invalid_params')) throw err;
      const before = counts.imported === 0 ? 'Nothing was imported.' : `What was sent before it stays imported (${counts.imported} event${counts.imported === 1 ? '' : 's'}).`;
      return { ok: false, message: `${err.message}. ${before}` };
    }
    onProgress(done + 1, chunks.length);
  }
  return { ok: true, ...counts, runs: checked.runs, repeatedLines: checked.repeats, trimmed: checked.trimmed, masked: checked.masked };
}

/** Deletes runs on the host (its journal, so every page), then here at once (the host's news repeats it harmlessly). */
export async function deleteRunsEverywhere(client: Pick<HostClient, 'request'>, db: StewardDb, runIds: readonly string[]): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < runIds.length; i += MAX_DELETE_RUNS) {
    const batch = runIds.slice(i, i + MAX_DELETE_RUNS);
    deleted += (await client.request('runs.delete', { run_ids: batch })).deleted;
    await deleteRuns(db, batch);
  }
  return deleted;
}
