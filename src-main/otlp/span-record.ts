/**
 * One span of a run as Steward maps it (trace-to-spans.ts), before the official OpenTelemetry
 * transformer encodes it (encode-otlp.ts). Ids are lowercase hex: 32 digits for the trace, 16 for spans.
 */
export type SpanAttributeValue = string | number | boolean | string[];
export type SpanAttributes = Record<string, SpanAttributeValue>;

export interface SpanEventRecord {
  name: string;
  timeMs: number;
  attributes: SpanAttributes;
}

export type SpanStatusRecord = { code: 'unset' } | { code: 'ok' } | { code: 'error'; message: string };

export interface SpanRecord {
  name: string;
  /** client: a call to a model server; internal: everything Steward does itself. */
  kind: 'internal' | 'client';
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  startMs: number;
  endMs: number;
  attributes: SpanAttributes;
  events: SpanEventRecord[];
  status: SpanStatusRecord;
}
