import { MAX_DELETE_RUNS } from '@shared/contracts/host-api';
import type { RunEvent } from '@shared/contracts/events';
import type { StewardDb } from '../../db/db';
import { deleteRuns } from '../../db/delete-runs';
import type { HostClient } from '../../host/host-client';
import { importChunks, parseTraceJsonl } from './runs-jsonl';

/** What an import did, or why nothing was imported (a line named by file and number). */
export type ImportOutcome = { ok: true; imported: number; skipped: number; runs: number } | { ok: false; message: string };

/**
 * Imports JSONL trace files (exports of this page, CLI --trace files) through the host's journal:
 * every line of every file is checked first, and one bad line imports nothing. Then the events go
 * in requests under the transport's size limit; the page receives them back as any other events.
 */
export async function importTraceFiles(
  client: Pick<HostClient, 'request'>,
  files: ReadonlyArray<{ name: string; text: string }>,
  onProgress: (done: number, total: number) => void = () => undefined,
): Promise<ImportOutcome> {
  const parts: Array<{ name: string; chunks: RunEvent[][] }> = [];
  let runs = 0;
  for (const file of files) {
    const parsed = parseTraceJsonl(file.text);
    if (!parsed.ok) return { ok: false, message: parsed.line === 0 ? `${file.name}: ${parsed.problem}. Nothing was imported.` : `${file.name}, line ${parsed.line}: ${parsed.problem}. Nothing was imported.` };
    const chunks = importChunks(parsed.events, {}, parsed.lines);
    if (!chunks.ok) return { ok: false, message: `${file.name}, line ${chunks.line}: ${chunks.problem}. Nothing was imported.` };
    parts.push({ name: file.name, chunks: chunks.chunks });
    runs += parsed.runs;
  }
  const total = parts.reduce((n, p) => n + p.chunks.length, 0);
  let done = 0;
  let imported = 0;
  let skipped = 0;
  onProgress(0, total);
  for (const part of parts) {
    // One import per file: a run split across its requests comes in whole.
    const importId = `${part.name.slice(0, 60)}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    for (const events of part.chunks) {
      const result = await client.request('runs.import', { import_id: importId, events });
      imported += result.imported;
      skipped += result.skipped;
      onProgress(++done, total);
    }
  }
  return { ok: true, imported, skipped, runs };
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
