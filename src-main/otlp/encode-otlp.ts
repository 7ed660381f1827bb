import { SpanKind, SpanStatusCode, TraceFlags, type SpanStatus } from '@opentelemetry/api';
import { hrTimeDuration, millisToHrTime } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { APP_VERSION } from '../version';
import type { SpanRecord, SpanStatusRecord } from './span-record';
import { STEWARD_SERVICE_NAME } from './trace-to-spans';

/**
 * Spans as the OpenTelemetry SDK hands them to an exporter: the official transformer then writes
 * the OTLP request, so what Steward sends is what any OpenTelemetry exporter would send.
 */
export function toReadableSpans(spans: readonly SpanRecord[]): ReadableSpan[] {
  const resource = resourceFromAttributes({ 'service.name': STEWARD_SERVICE_NAME, 'service.version': APP_VERSION });
  const instrumentationScope = { name: 'steward.trace-export', version: APP_VERSION };
  return spans.map((span) => {
    const startTime = millisToHrTime(span.startMs);
    const endTime = millisToHrTime(span.endMs);
    const context = { traceId: span.traceId, spanId: span.spanId, traceFlags: TraceFlags.SAMPLED };
    return {
      name: span.name,
      kind: span.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
      spanContext: () => context,
      ...(span.parentSpanId !== undefined ? { parentSpanContext: { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: TraceFlags.SAMPLED } } : {}),
      startTime,
      endTime,
      duration: hrTimeDuration(startTime, endTime),
      status: otelStatus(span.status),
      attributes: span.attributes,
      links: [],
      events: span.events.map((e) => ({ name: e.name, time: millisToHrTime(e.timeMs), attributes: e.attributes })),
      ended: true,
      resource,
      instrumentationScope,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
  });
}

/** The OTLP/JSON ExportTraceServiceRequest body for these spans (ids in hex, times in nanoseconds). */
export function encodeOtlpJson(spans: readonly SpanRecord[]): Uint8Array {
  const body = JsonTraceSerializer.serializeRequest(toReadableSpans(spans));
  // The serializer returns undefined only when it cannot encode at all: fail closed with a reason.
  if (body === undefined) throw new Error('the OpenTelemetry serializer could not encode this trace');
  return body;
}

function otelStatus(status: SpanStatusRecord): SpanStatus {
  switch (status.code) {
    case 'ok':
      return { code: SpanStatusCode.OK };
    case 'error':
      return { code: SpanStatusCode.ERROR, message: status.message };
    case 'unset':
      return { code: SpanStatusCode.UNSET };
  }
}
