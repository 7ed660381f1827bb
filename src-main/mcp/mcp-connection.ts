import type { Prompt, ReadResourceResult, Resource, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CallOptions, CallOutcome } from './server-connection';
import type { DeprecatedFeature } from '@shared/contracts/mcp-revision';

/**
 * What a run's tool host needs of one connected server, whichever revision it speaks: the
 * 2025-era connection (server-connection.ts, SDK 1.x: stdio, Streamable HTTP, HTTP+SSE) or the
 * 2026-07-28 one (modern-connection.ts, SDK v2). Results are in the 2025-era SDK's types either way.
 */
export interface McpConnection {
  readonly id: string;
  /** A remote server's address (for messages), absent for stdio. */
  readonly remote?: string;
  readonly pid: number | null;
  readonly alive: boolean;
  /** `serverInfo.name` as the server reported it. */
  readonly serverName: string | undefined;
  /** The MCP revision Steward and the server agreed on (e.g. "2026-07-28"). */
  readonly protocolVersion: string | undefined;
  /** Features deprecated in MCP 2026-07-28 this server uses (a 2025 server: deprecated-use.ts); absent: none seen. */
  readonly deprecatedFeatures?: readonly DeprecatedFeature[];
  /** Changes whenever the tool list was fetched anew. */
  readonly toolsVersion: number;
  /** The last lines the server wrote to stderr (none for a remote server). */
  readonly tail: { all(): string[] };
  listTools(): Promise<Tool[]>;
  callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallOutcome>;
  listResources(): Promise<Resource[]>;
  listPrompts(): Promise<Prompt[]>;
  readResource(uri: string, options?: CallOptions): Promise<{ kind: 'result'; result: ReadResourceResult } | { kind: 'protocol_error'; message: string }>;
  close(): Promise<void>;
}
