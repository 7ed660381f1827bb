import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { RunEvent } from '@shared/contracts/events';
import type { TraceProblem } from '@shared/contracts/learning-export';
import { traceLineEvent } from '../events/trace-line';
import { OtlpExportError } from './otlp-errors';
import { fileProblem } from '../util/file-problem';

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
