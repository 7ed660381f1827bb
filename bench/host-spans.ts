import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { EventJournal } from '../src-main/events/event-journal';

/** A span of the event loop's time: when it started and how long it lasted (performance.now() ms). */
export type OnSpan = (startedAt: number, ms: number) => void;

/** Reports every call of EventJournal.appendReport (the history's appends, holding the event loop). For the boundary's profiling benches. */
export function spanAppends(onSpan: OnSpan): void {
  const appendReport = EventJournal.prototype.appendReport;
  EventJournal.prototype.appendReport = function spanned(this: EventJournal, ...args: Parameters<EventJournal['appendReport']>) {
    const t0 = performance.now();
    try {
      return appendReport.apply(this, args);
    } finally {
      onSpan(t0, performance.now() - t0);
    }
  };
}

/** Reports every MCP tool call made through the SDK's client, from its callTool to its result (the host's and a bare loop's alike). */
export function spanToolCalls(onSpan: OnSpan): void {
  const callTool = Client.prototype.callTool;
  Client.prototype.callTool = async function spanned(this: Client, ...args: Parameters<Client['callTool']>) {
    const t0 = performance.now();
    try {
      return await callTool.apply(this, args);
    } finally {
      onSpan(t0, performance.now() - t0);
    }
  } as Client['callTool'];
}
