import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { JSONRPCMessage as LegacyMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Client, JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import type { Prompt, ReadResourceResult, Resource, Tool } from '@modelcontextprotocol/sdk/types.js';
import { McpAnswerTooLargeError, McpCallError } from './errors';
import { MAX_MCP_MESSAGE_BYTES } from './answer-bound';
import { formatBytes } from '../providers/http-call';
import type { McpConnection } from './mcp-connection';
import { ModernConnection, withResultType } from './modern-connection';
import type { CallOptions, CallOutcome, ConnectOptions } from './server-connection';
import type { StderrTail } from './stderr-tail';

/**
 * The SDK v2 client's view of a stdio server's process (the 2025 SDK's StdioClientTransport, the
 * one the 2025 connection uses: the same spawn, stdout bound and stderr pipe). While `held`, the
 * client's close leaves the process running: a server that refuses `server/discover` is asked the
 * 2025 way over the same pipe (stdio-negotiation.ts), never spawned twice. A result without
 * `resultType` reads as complete, as over HTTP.
 */
export class ProbeShield implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private held = true;
  /** The process was spawned (whatever became of it since). */
  spawned = false;

  constructor(
    private readonly real: StdioClientTransport,
    private readonly watch: { error(error: Error): void; exit(): void },
  ) {}

  /** Read by the SDK to tell a stdio transport (a probe timeout there means an older server). */
  get pid(): number | null {
    return this.real.pid;
  }

  get stderr(): StdioClientTransport['stderr'] {
    return this.real.stderr;
  }

  async start(): Promise<void> {
    this.real.onmessage = (message) => this.onmessage?.(withResultType(message as JSONRPCMessage));
    this.real.onerror = (error) => {
      this.watch.error(error);
      this.onerror?.(error);
    };
    this.real.onclose = () => {
      this.watch.exit();
      this.onclose?.();
    };
    await this.real.start();
    this.spawned = true;
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.real.send(message as LegacyMessage);
  }

  async close(): Promise<void> {
    if (!this.held) await this.real.close();
  }

  /** 2026-07-28 was agreed: from now on the client's close ends the process. */
  release(): void {
    this.held = false;
  }

  /** The 2025 handshake takes the process over: nothing of the probe listens any more. */
  detach(): void {
    this.real.onmessage = undefined;
    this.real.onerror = undefined;
    this.real.onclose = undefined;
  }
}

/**
 * A stdio server on MCP 2026-07-28 (issue 30): the requests and their answers as for a remote one
 * (ModernConnection: input requests answered and retried, results read into the 2025 SDK's shapes),
 * with a process's fences as the 2025 stdio connection has them: its pid, its stderr tail, an
 * answer bound (a stdout line past it stops the server), the process ended on close, and a server
 * that exits named with its last stderr line.
 */
export class ModernStdioConnection implements McpConnection {
  readonly remote = undefined;
  private exited = false;
  private closing: Promise<void> | undefined;
  /** Why Steward itself stopped the server (a message past the bound). */
  private stoppedFor: string | undefined;
  private readonly inner: ModernConnection;

  constructor(
    readonly id: string,
    client: Client,
    private readonly transport: StdioClientTransport,
    readonly tail: StderrTail,
    options: ConnectOptions,
  ) {
    this.inner = ModernConnection.adopt(id, client, options, `pid ${transport.pid ?? '?'}`);
    this.inner.followToolChanges();
  }

  get pid(): number | null {
    return this.transport.pid ?? null;
  }

  get alive(): boolean {
    return !this.exited && this.inner.alive;
  }

  get serverName(): string | undefined {
    return this.inner.serverName;
  }

  get protocolVersion(): string | undefined {
    return this.inner.protocolVersion;
  }

  get toolsVersion(): number {
    return this.inner.toolsVersion;
  }

  /** The process ended (stdout closed). */
  markExited(): void {
    this.exited = true;
  }

  /** A stdout line passed the bound: the SDK drops it and closes; the server is not waited for. */
  stop(why: string): void {
    this.stoppedFor ??= why;
    const pid = this.transport.pid;
    if (pid === null) return;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  listTools(): Promise<Tool[]> {
    return this.fenced(() => this.inner.listTools());
  }

  callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallOutcome> {
    return this.fenced(() => this.inner.callTool(name, args, options));
  }

  listResources(): Promise<Resource[]> {
    return this.fenced(() => this.inner.listResources());
  }

  listPrompts(): Promise<Prompt[]> {
    return this.fenced(() => this.inner.listPrompts());
  }

  readResource(uri: string, options?: CallOptions): Promise<{ kind: 'result'; result: ReadResourceResult } | { kind: 'protocol_error'; message: string }> {
    return this.fenced(() => this.inner.readResource(uri, options));
  }

  /** Idempotent; waits for the process to go (the SDK ends stdin, then SIGTERM, then SIGKILL). */
  close(): Promise<void> {
    this.closing ??= this.inner.close();
    return this.closing;
  }

  /** A lost connection is a process that ended: say so with its last stderr line, or why Steward stopped it. */
  private async fenced<T>(run: () => Promise<T>): Promise<T> {
    if (this.exited && !this.closing) throw this.exitedError();
    try {
      return await run();
    } catch (error) {
      if (error instanceof McpCallError && error.serverExited && !this.closing) throw this.exitedError();
      throw error;
    }
  }

  private exitedError(): McpCallError {
    if (this.stoppedFor !== undefined) {
      return new McpAnswerTooLargeError(this.id, `MCP server "${this.id}" ${this.stoppedFor}; its tools are unavailable for the rest of this run`, MAX_MCP_MESSAGE_BYTES, true);
    }
    const last = this.tail.lastLine();
    return new McpCallError(this.id, `MCP server "${this.id}" exited unexpectedly${last ? ` (last stderr: ${last})` : ''}; its tools are unavailable for the rest of this run`, true);
  }
}

/** The words for a stdout line past the bound, as the 2025 connection says them. */
export function stoppedForSize(): string {
  return `wrote a message larger than ${formatBytes(MAX_MCP_MESSAGE_BYTES)} on stdout; Steward stopped reading it and stopped the server`;
}
