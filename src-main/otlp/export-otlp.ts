import type { RunEvent } from '@shared/contracts/events';
import type { TraceProblem } from '@shared/contracts/learning-export';
import { encodeOtlpJson } from './encode-otlp';
import { readTraceEvents } from './read-trace-events';
import { runSpans } from './trace-to-spans';
import type { PriceList } from '@shared/accounting/price-list';

export interface OtlpExport {
  /** The OTLP/JSON ExportTraceServiceRequest. */
  body: Uint8Array;
  spans: number;
  runs: number;
  /** Trace lines skipped (not JSON, not a Steward event). */
  problems: TraceProblem[];
}

/** A run's events (or several runs') as one OTLP/JSON request. */
export function exportEvents(events: readonly RunEvent[], prices: PriceList = {}): Pick<OtlpExport, 'body' | 'spans' | 'runs'> {
  const spans = runSpans(events, prices);
  return { body: encodeOtlpJson(spans), spans: spans.length, runs: new Set(events.map((e) => e.run_id)).size };
}

/** A `--trace` file as one OTLP/JSON request; an unreadable file or a non-trace is an OtlpExportError. */
export async function exportTraceFile(path: string, prices: PriceList = {}): Promise<OtlpExport> {
  const { events, problems } = await readTraceEvents(path);
  return { ...exportEvents(events, prices), problems };
}
