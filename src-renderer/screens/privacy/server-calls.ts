import type { RunEvent, RunEventOf } from '@shared/contracts/events';

export type ServerCall = RunEventOf<'mcp.called'>;

/** One tool of one remote server: how often it was called, with which argument names, how many bytes. */
export interface ServerToolSent {
  tool: string;
  calls: number;
  bytes: number;
  /** Every argument name any call carried, sorted (values are never logged). */
  argumentNames: string[];
}

/** A remote MCP server (by id and host) and what the run sent it. */
export interface ServerSent {
  key: string;
  server: string;
  host: string;
  local: boolean;
  calls: number;
  bytes: number;
  tools: ServerToolSent[];
}

/**
 * The remote MCP servers' part of the privacy log (issue 13), from `mcp.called` events: per server
 * and host, each tool's calls, argument names and bytes; servers on another machine first.
 */
export function serverCalls(events: readonly RunEvent[]): ServerSent[] {
  const byKey = new Map<string, ServerSent & { byTool: Map<string, ServerToolSent & { names: Set<string> }> }>();
  for (const event of events) {
    if (event.type !== 'mcp.called') continue;
    const key = `${event.server}|${event.host}`;
    let group = byKey.get(key);
    if (!group) {
      group = { key, server: event.server, host: event.host, local: event.local, calls: 0, bytes: 0, tools: [], byTool: new Map() };
      byKey.set(key, group);
    }
    group.calls += 1;
    group.bytes += event.bytes;
    let tool = group.byTool.get(event.tool);
    if (!tool) {
      tool = { tool: event.tool, calls: 0, bytes: 0, argumentNames: [], names: new Set() };
      group.byTool.set(event.tool, tool);
    }
    tool.calls += 1;
    tool.bytes += event.bytes;
    for (const name of Object.keys(event.arguments)) tool.names.add(name);
  }
  return [...byKey.values()]
    .map(({ byTool, ...group }) => ({ ...group, tools: [...byTool.values()].map(({ names, ...t }) => ({ ...t, argumentNames: [...names].sort() })) }))
    .sort((a, b) => Number(a.local) - Number(b.local));
}
