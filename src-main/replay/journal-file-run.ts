import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { RunEvent } from '@shared/contracts/events';

/**
 * One run's events from a data folder's journal file (`<data>/outbox.jsonl`), read without opening
 * the journal: a host may hold it, and reading never repairs or rewrites it. Lines that are not a
 * valid event (a torn last line, another kind of journal line) are passed over, as the journal does.
 */
export async function journalFileRunEvents(path: string, runId: string): Promise<RunEvent[]> {
  if (!existsSync(path)) return [];
  const events: RunEvent[] = [];
  const input = createReadStream(path, { encoding: 'utf8' });
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    // Cheap first: most lines are other runs' events.
    if (!text.includes(runId)) continue;
    let line: unknown;
    try {
      line = JSON.parse(text);
    } catch {
      continue;
    }
    const parsed = RunEvent.safeParse((line as { k?: unknown; event?: unknown } | null)?.k === 'event' ? (line as { event: unknown }).event : undefined);
    if (parsed.success && parsed.data.run_id === runId) events.push(parsed.data);
  }
  return events;
}
