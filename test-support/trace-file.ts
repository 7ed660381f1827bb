import { readFileSync } from 'node:fs';
import type { RunEvent } from '@shared/contracts/events';
import { TRACE_FORMAT } from '@shared/contracts/trace-format';
import { traceLineEvent } from '@shared/contracts/trace-line';

/**
 * The events of a trace as Steward writes one now, read as every reader reads it (trace-line.ts):
 * a line that is not trace format 2 (rounds numbered from 1), or holds a round 0, fails the test.
 */
export function writtenTraceEvents(text: string): RunEvent[] {
  return text.split('\n').flatMap((line, i) => {
    if (line.trim() === '') return [];
    const format = (JSON.parse(line) as { trace_format?: unknown }).trace_format;
    if (format !== TRACE_FORMAT) throw new Error(`trace line ${i + 1} is not trace format ${TRACE_FORMAT}: ${line.slice(0, 120)}`);
    const read = traceLineEvent(line);
    if (!read.ok) throw new Error(`trace line ${i + 1}: ${read.problem}`);
    return [read.event];
  });
}

/** A trace file's events (`steward run --trace`, the app's Export JSONL), checked as writtenTraceEvents checks them. */
export function readTraceFile(path: string): RunEvent[] {
  return writtenTraceEvents(readFileSync(path, 'utf8'));
}
