import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { RunEvent } from '@shared/contracts/events';
import type { TraceProblem } from '@shared/contracts/learning-export';
import { JsonTooDeepError, MAX_JSON_DEPTH, jsonDepthExceeds } from '@shared/util/json-depth';
import { OtlpExportError } from './otlp-errors';

/**
 * Every event of a `--trace` JSONL file, each line validated as a RunEvent: a bad line (the torn
 * last line of a killed run, an event of another Steward version) is skipped and reported with its
 * number. A file with no valid event at all, or one that cannot be read, is an OtlpExportError.
 */
export async function readTraceEvents(path: string): Promise<{ events: RunEvent[]; problems: TraceProblem[] }> {
  const events: RunEvent[] = [];
  const problems: TraceProblem[] = [];
  const input = createReadStream(path, { encoding: 'utf8' });
  let line = 0;
  try {
    for await (const text of createInterface({ input, crlfDelay: Infinity })) {
      line += 1;
      const read = text.trim() === '' ? undefined : traceLineEvent(text);
      if (read?.ok) events.push(read.event);
      else if (read) problems.push({ file: path, line, message: read.problem });
    }
  } catch (err) {
    throw new OtlpExportError(`cannot read trace ${path}: ${fileProblem(err)}`);
  }
  if (events.length > 0) return { events, problems };
  const first = problems[0];
  throw new OtlpExportError(first ? `${path} is not a Steward trace (line ${first.line}: ${first.message})` : `${path} holds no events`);
}

/** One trace line as an event, or what is wrong with it (in words a person can act on). */
export function traceLineEvent(text: string): { ok: true; event: RunEvent } | { ok: false; problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'not JSON' };
  }
  if (jsonDepthExceeds(value)) return { ok: false, problem: new JsonTooDeepError(MAX_JSON_DEPTH).message };
  const parsed = RunEvent.safeParse(value);
  if (parsed.success) return { ok: true, event: parsed.data };
  const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  return { ok: false, problem: typeof type === 'string' ? `a "${type}" event this version of Steward cannot read` : 'not a Steward event' };
}

function fileProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a folder';
  if (code === 'EACCES') return 'permission denied';
  return err instanceof Error ? err.message : String(err);
}
