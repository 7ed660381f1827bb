import { existsSync } from 'node:fs';
import type { InputContinuation } from './input-pause';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListToolsResultSchema,
  McpError,
  ReadResourceResultSchema,
  ToolListChangedNotificationSchema,
  type Progress,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { newMcpClient, type ClientCapabilityOptions } from './client-capabilities';
import { McpAnswerTooLargeError, McpCallError, McpStartError, errorMessage, protocolRefusalText } from './errors';
import { AnswerTooLarge, MAX_MCP_MESSAGE_BYTES } from './answer-bound';
import { formatBytes } from '../providers/http-call';
import type { ServerLaunch } from './server-launch';
import { StderrTail } from './stderr-tail';
import { DEPRECATED_FEATURES, watchDeprecatedUse, type DeprecatedFeature } from './deprecated-use';
import type { RawToolResult } from './tool-result';

export { CLIENT_INFO } from './client-capabilities';
/** How long a failed start waits for the last stderr output before reporting. */
const STDERR_GRACE_MS = 500;
/** A server that lists more pages than this is misbehaving. */
const MAX_TOOL_PAGES = 50;

export interface ConnectOptions extends ClientCapabilityOptions {
  startTimeoutMs: number;
  callTimeoutMs: number;
  onLog?: (line: string) => void;
  /** While a tool listing is slow, a "still waiting" line goes here (else to onLog) this often. */
  onProgress?: (line: string) => void;
  /** Default 10 s. */
  progressIntervalMs?: number;
}

const DEFAULT_PROGRESS_INTERVAL_MS = 10_000;

/**
 * A tool call that reached the server: its result, the server's protocol-level refusal (the tool did
 * not run), or a reply that is not a valid result (it may have run; `detail` is for the log only).
 */
export type CallOutcome = { kind: 'result'; result: RawToolResult } | { kind: 'protocol_error'; message: string } | { kind: 'malformed'; detail: string };

/** How one call runs: its deadline (restarted by each progress report) and where progress goes. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  onProgress?: (progress: Progress) => void;
  /** W3C `traceparent` for a tool call's `params._meta` (SEP-414; the OpenTelemetry MCP conventions). */
  traceparent?: string;
  /**
   * 2026-07-28 (issue 30): a server's input request that needs a person pauses the call
   * (InputRequiredPause, input-pause.ts) instead of being answered in this process. Older revisions have no such request.
   */
  pauseForInput?: boolean;
  /** The same call continuing after such a pause: the answers and the server's `requestState`. */
  continueWith?: InputContinuation;
}

/** A stdio server's process, spawned and started already (stdio-negotiation.ts), with its stderr tail. */
export interface OpenedStdio {
  transport: StdioClientTransport;
  tail: StderrTail;
  /** When the start deadline ends (ms since the epoch). */
  deadline: number;
}

/** The process a stdio server runs as: a stdout line read up to the message bound, stderr piped for its tail. */
export function stdioTransport(launch: ServerLaunch): StdioClientTransport {
  return new StdioClientTransport({
    command: launch.command,
    args: launch.args,
    env: launch.env,
    cwd: launch.cwd,
    stderr: 'pipe',
    // The SDK buffers a stdout line until its newline; past this it drops the buffer and closes the transport.
    maxBufferSize: MAX_MCP_MESSAGE_BYTES,
  });
}

/** The last 20 stderr lines of a stdio server, each also logged as `[mcp ID] line`. */
export function stdioTail(id: string, log: ((line: string) => void) | undefined): StderrTail {
  return new StderrTail(20, log ? (line) => log(`[mcp ${id}] ${line}`) : undefined);
}

/** What a connection talks through: a stdio process (it has a pid) or an HTTP transport. */
export type ConnectionTransport = Transport & { readonly pid?: number | null };

/** One running server (stdio, or remote over HTTP): its client, its stderr tail, and whether it is still alive. */
export class ServerConnection {
  private exited = false;
  private closing: Promise<void> | undefined;
  /** What the SDK client's output-schema cache was last built from. */
  private cachedToolsFingerprint: string | undefined;
  /** The server's tool list, until it announces a change (`notifications/tools/list_changed`). */
  private toolList: Tool[] | undefined;
  private toolListVersion = 0;
  /** Why Steward itself ended the connection (a message past the bound), for the calls that find it gone. */
  private stoppedFor: string | undefined;
  /** The MCP revision the handshake settled on (e.g. "2025-11-25"). */
  private negotiated: string | undefined;
  private readonly seenDeprecated = new Set<DeprecatedFeature>();

  private constructor(
    readonly id: string,
    readonly launch: ServerLaunch | undefined,
    private readonly client: Client,
    private readonly transport: ConnectionTransport,
    readonly tail: StderrTail,
    private readonly options: ConnectOptions,
    /** A remote server's address (for messages), absent for stdio. */
    readonly remote?: string,
  ) {
    // The SDK tells the transport the revision the handshake settled on (HTTP sends it as a header);
    // stdio has no such hook, so one is given to every transport to learn it.
    const told = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = (version: string) => {
      this.negotiated = version;
      told?.(version);
    };
    watchDeprecatedUse(transport, this.seenDeprecated);
  }

  /**
   * The features deprecated in MCP 2026-07-28 this server uses (issue 30): it declared `logging`,
   * or asked for roots or sampling, or sent log messages on this connection. They keep working; the
   * registry marks them.
   */
  get deprecatedFeatures(): DeprecatedFeature[] {
    const used = new Set(this.seenDeprecated);
    if (this.client.getServerCapabilities()?.logging) used.add('logging');
    return DEPRECATED_FEATURES.filter((f) => used.has(f));
  }

  /** The MCP protocol revision this server and Steward agreed on in the handshake (absent before it). */
  get protocolVersion(): string | undefined {
    return this.negotiated;
  }

  /**
   * A connection over a transport the caller connects (http-connection.ts): wired for close and
   * tool-list changes before the handshake, as `connect` does for stdio.
   */
  static over(id: string, client: Client, transport: ConnectionTransport, options: ConnectOptions, remote: string): ServerConnection {
    const conn = new ServerConnection(id, undefined, client, transport, new StderrTail(20), options, remote);
    client.onclose = () => conn.onClosed();
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => conn.invalidateTools());
    return conn;
  }

  /**
   * Spawns the server and completes the MCP handshake, or throws McpStartError saying why not.
   * `opened`: a process already spawned and asked for 2026-07-28 (stdio-negotiation.ts), which
   * refused: the handshake goes on over its pipe, within what is left of the start deadline.
   */
  static async connect(id: string, launch: ServerLaunch, options: ConnectOptions, opened?: OpenedStdio): Promise<ServerConnection> {
    const log = options.onLog;
    const tail = opened?.tail ?? stdioTail(id, log);
    const transport = opened?.transport ?? stdioTransport(launch);
    // Available before start, so nothing the server says while failing is lost.
    if (!opened && transport.stderr) tail.attach(transport.stderr);
    // Started already: the client's connect must not start it again.
    if (opened) transport.start = () => Promise.resolve();
    const client = newMcpClient(options);
    const conn = new ServerConnection(id, launch, client, transport, tail, options);
    client.onclose = () => conn.onClosed();
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => conn.invalidateTools());
    // A line on stdout that is not JSON-RPC (a console.log banner) would corrupt the handshake and
    // end, 20 s later, as a timeout: during the start it fails the start at once, saying so.
    let rejectStart: ((error: Error) => void) | undefined;
    const misbehaved = new Promise<never>((_, reject) => {
      rejectStart = reject;
    });
    misbehaved.catch(() => undefined);
    client.onerror = (error) => {
      if (STDIO_BUFFER_FULL.test(error.message)) {
        // The SDK closes the transport next, gracefully (2 s for stdin's end, then SIGTERM); a server
        // that floods stdout is not waited for.
        conn.stoppedFor ??= `wrote a message larger than ${formatBytes(MAX_MCP_MESSAGE_BYTES)} on stdout; Steward stopped reading it and stopped the server`;
        conn.kill();
      }
      const junk = nonProtocolOutput(error);
      if (junk !== undefined) rejectStart?.(new NonProtocolOutput(junk));
      log?.(`[mcp ${id}] ${junk ?? errorMessage(error)}`);
    };

    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    let misbehaving = false;
    const connecting = client.connect(transport);
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        timedOut = true;
        resolve();
      }, opened ? Math.max(0, opened.deadline - Date.now()) : options.startTimeoutMs);
    });
    try {
      await Promise.race([connecting, deadline, misbehaved]).catch(async (error: unknown) => {
        if (!(error instanceof NonProtocolOutput)) throw error;
        misbehaving = true;
        conn.kill();
        // The handshake ends with the killed process; should the SDK never settle it, the start still fails now.
        await settledWithin(connecting, 2_000);
        throw error;
      });
      if (timedOut) {
        // It is still running but silent: kill it now rather than wait out the SDK's graceful close.
        conn.kill();
        await connecting.catch(() => undefined);
        throw new Error('timeout');
      }
    } catch (error) {
      await conn.close();
      await tail.settled(STDERR_GRACE_MS);
      const stopped = conn.stoppedFor === undefined ? undefined : `it ${conn.stoppedFor}`;
      const reason = timedOut ? `no answer to the MCP handshake within ${options.startTimeoutMs} ms` : misbehaving ? `it ${errorMessage(error)}` : (stopped ?? startReason(error, launch));
      throw new McpStartError(id, reason, tail.lastLine());
    } finally {
      clearTimeout(timer);
      rejectStart = undefined;
    }
    log?.(`[mcp ${id}] started pid ${conn.pid ?? '?'} (${conn.serverName ?? 'unnamed server'})`);
    return conn;
  }

  get pid(): number | null {
    return this.transport.pid ?? null;
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** `serverInfo.name` from the handshake: lets a command-started reference server find its shipped effects. */
  get serverName(): string | undefined {
    return this.client.getServerVersion()?.name;
  }

  /**
   * Every tool the server offers (all pages). The list is fetched once and again whenever the server
   * announces a change (`notifications/tools/list_changed`), so a round's snapshot costs no round
   * trip. It uses a plain `tools/list` request: the SDK's `listTools()` recompiles every
   * output-schema validator on each call, so it is called only when the list changed.
   */
  async listTools(): Promise<Tool[]> {
    this.assertAlive();
    if (this.toolList) return this.toolList;
    const stopProgress = this.reportProgress('list its tools');
    try {
      return await this.fetchToolList();
    } finally {
      stopProgress();
    }
  }

  private async fetchToolList(): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const params = cursor === undefined ? undefined : { cursor };
      const result = await this.request('list its tools', () =>
        this.client.request({ method: 'tools/list', params }, ListToolsResultSchema, { timeout: this.options.callTimeoutMs }),
      ).catch((error: unknown) => {
        if (error instanceof ProtocolRefusal) throw new McpCallError(this.id, `MCP server "${this.id}" refused to list its tools: ${error.message}`);
        throw error;
      });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) {
        await this.refreshSdkToolCache(tools);
        this.toolList = tools;
        this.toolListVersion += 1;
        return tools;
      }
    }
    throw new McpCallError(this.id, `MCP server "${this.id}" kept paginating its tool list (more than ${MAX_TOOL_PAGES} pages)`);
  }

  /** A slow request is not a silent one: "still waiting for X to list its tools (10 s)…" until it ends. */
  private reportProgress(what: string): () => void {
    const log = this.options.onProgress ?? this.options.onLog;
    if (!log) return () => undefined;
    const every = this.options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS;
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
      log(`[mcp ${this.id}] still waiting for "${this.id}" to ${what} (${Number(((ticks * every) / 1000).toFixed(1))} s)…`);
    }, every);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Changes whenever the tool list was fetched anew: lets the host reuse what it built from it. */
  get toolsVersion(): number {
    return this.toolListVersion;
  }

  invalidateTools(): void {
    this.toolList = undefined;
  }

  private async refreshSdkToolCache(tools: Tool[]): Promise<void> {
    const fingerprint = JSON.stringify(tools.map((t) => [t.name, t.outputSchema ?? null, t.execution ?? null]));
    if (fingerprint === this.cachedToolsFingerprint) return;
    await this.request('list its tools', () => this.client.listTools(undefined, { timeout: this.options.callTimeoutMs }));
    this.cachedToolsFingerprint = fingerprint;
  }

  /**
   * Calls one tool with a progress token; its deadline restarts whenever the server reports progress.
   * Aborting `signal` sends the server `notifications/cancelled` (the SDK does). Throws McpCallError
   * when the call could not be made or its outcome is unknown.
   */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallOutcome> {
    const { signal, onProgress } = options;
    const timeout = options.timeoutMs ?? this.options.callTimeoutMs;
    this.assertAlive();
    if (signal?.aborted) throw new McpCallError(this.id, `call to "${this.id}/${name}" was aborted before it was sent`);
    try {
      const result = await this.request(
        `run "${name}"`,
        () =>
          this.client
            .callTool({ name, arguments: args, ...(options.traceparent ? { _meta: { traceparent: options.traceparent } } : {}) }, undefined, { timeout, resetTimeoutOnProgress: true, signal, onprogress: (p) => onProgress?.(p) })
            .catch((error: unknown) => {
              throw isMalformedReply(error) ? new MalformedReply(errorMessage(error)) : error;
            }),
        signal,
        timeout,
      );
      return { kind: 'result', result };
    } catch (error) {
      if (error instanceof ProtocolRefusal) return { kind: 'protocol_error', message: error.message };
      if (error instanceof MalformedReply) return { kind: 'malformed', detail: error.message };
      throw error;
    }
  }

  /** The server's resources (all pages; none unless it declares the capability). */
  async listResources(): Promise<Resource[]> {
    this.assertAlive();
    if (!this.client.getServerCapabilities()?.resources) return [];
    return this.listPages('list its resources', async (params) => {
      const page = await this.client.request({ method: 'resources/list', params }, ListResourcesResultSchema, { timeout: this.options.callTimeoutMs });
      return { items: page.resources, nextCursor: page.nextCursor };
    });
  }

  /** The server's prompts (all pages; none unless it declares the capability). */
  async listPrompts(): Promise<Prompt[]> {
    this.assertAlive();
    if (!this.client.getServerCapabilities()?.prompts) return [];
    return this.listPages('list its prompts', async (params) => {
      const page = await this.client.request({ method: 'prompts/list', params }, ListPromptsResultSchema, { timeout: this.options.callTimeoutMs });
      return { items: page.prompts, nextCursor: page.nextCursor };
    });
  }

  /** Reads one resource; a refusal (unknown URI) is the server's answer, as for a tool call. */
  async readResource(uri: string, options: CallOptions = {}): Promise<{ kind: 'result'; result: ReadResourceResult } | { kind: 'protocol_error'; message: string }> {
    const { signal } = options;
    const timeout = options.timeoutMs ?? this.options.callTimeoutMs;
    this.assertAlive();
    try {
      const result = await this.request(`read ${uri}`, () => this.client.request({ method: 'resources/read', params: { uri } }, ReadResourceResultSchema, { timeout, signal }), signal, timeout);
      return { kind: 'result', result };
    } catch (error) {
      if (error instanceof ProtocolRefusal) return { kind: 'protocol_error', message: error.message };
      throw error;
    }
  }

  private async listPages<T>(what: string, page: (params: { cursor: string } | undefined) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    for (let n = 0; n < MAX_TOOL_PAGES; n++) {
      const result = await this.request(what, () => page(cursor === undefined ? undefined : { cursor })).catch((error: unknown) => {
        if (error instanceof ProtocolRefusal) throw new McpCallError(this.id, `MCP server "${this.id}" refused to ${what}: ${error.message}`);
        throw error;
      });
      items.push(...result.items);
      cursor = result.nextCursor;
      if (cursor === undefined) return items;
    }
    throw new McpCallError(this.id, `MCP server "${this.id}" kept paginating when asked to ${what} (more than ${MAX_TOOL_PAGES} pages)`);
  }

  /** Idempotent; waits for the process to go (the SDK ends stdin, then SIGTERM, then SIGKILL). */
  close(): Promise<void> {
    this.closing ??= this.client.close().catch((error: unknown) => {
      this.options.onLog?.(`[mcp ${this.id}] close: ${errorMessage(error)}`);
    });
    return this.closing;
  }

  /**
   * A message on the server's own event stream passed the bound (bounded-http.ts). Over Streamable
   * HTTP the SDK opens that stream again and calls go on; over HTTP+SSE that stream carries every
   * answer, so the connection is closed and calls in flight fail saying why.
   */
  streamCut(error: AnswerTooLarge, transport: 'streamable' | 'sse'): void {
    if (transport === 'streamable') {
      this.options.onLog?.(`[mcp ${this.id}] a message on its event stream passed ${formatBytes(error.limit)}; Steward stopped reading it`);
      return;
    }
    this.stoppedFor ??= `sent a message larger than ${formatBytes(error.limit)} on its event stream; Steward stopped reading it and closed the connection`;
    // Closing cannot fail the call that found the message too large: a failure to close is logged, never thrown.
    this.transport.close().catch((error: unknown) => this.options.onLog?.(`[mcp ${this.id}] could not close its connection: ${errorMessage(error)}`));
  }

  /** Explains a dead server: which one, and the last thing it wrote to stderr (or why Steward stopped it). */
  exitedError(): McpCallError {
    if (this.stoppedFor !== undefined) {
      const where = this.remote === undefined ? '' : ` (${this.remote})`;
      return new McpAnswerTooLargeError(this.id, `MCP server "${this.id}"${where} ${this.stoppedFor}; its tools are unavailable for the rest of this run`, MAX_MCP_MESSAGE_BYTES, true);
    }
    if (this.remote !== undefined) {
      return new McpCallError(this.id, `the connection to MCP server "${this.id}" (${this.remote}) was lost; its tools are unavailable for the rest of this run`, true);
    }
    const last = this.tail.lastLine();
    return new McpCallError(
      this.id,
      `MCP server "${this.id}" exited unexpectedly${last ? ` (last stderr: ${last})` : ''}; its tools are unavailable for the rest of this run`,
      true,
    );
  }

  private assertAlive(): void {
    if (this.closing) throw new McpCallError(this.id, `MCP server "${this.id}" has been closed`);
    if (this.exited) throw this.exitedError();
  }

  private onClosed(): void {
    this.exited = true;
    if (!this.closing) this.options.onLog?.(`[mcp ${this.id}] exited unexpectedly`);
  }

  private kill(): void {
    const pid = this.transport.pid;
    if (pid === null || pid === undefined) return;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  /**
   * Runs one request and sorts its failures: a dead server, a timeout and an abort are call errors
   * (outcome unknown); any other JSON-RPC error is the server's answer, so the tool did not run.
   */
  private async request<T>(what: string, run: () => Promise<T>, signal?: AbortSignal, timeoutMs = this.options.callTimeoutMs): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (signal?.aborted) throw new McpCallError(this.id, `call to MCP server "${this.id}" was aborted while asked to ${what}`);
      if (error instanceof MalformedReply) throw error;
      if (error instanceof AnswerTooLarge) {
        throw new McpAnswerTooLargeError(
          this.id,
          `MCP server "${this.id}" sent an answer larger than ${formatBytes(error.limit)} when asked to ${what}; Steward stopped reading it there (the call may have run)`,
          error.limit,
        );
      }
      if (error instanceof McpError) {
        if (error.code === ErrorCode.ConnectionClosed) {
          if (this.closing) throw new McpCallError(this.id, `MCP server "${this.id}" was closed while asked to ${what}`);
          throw this.exitedError();
        }
        if (error.code === ErrorCode.RequestTimeout) {
          throw new McpCallError(this.id, `MCP server "${this.id}" did not answer within ${timeoutMs} ms when asked to ${what}`);
        }
        throw new ProtocolRefusal(protocolRefusalText(error, this.launch?.packageName));
      }
      if (this.exited) throw this.exitedError();
      throw new McpCallError(this.id, `MCP server "${this.id}" failed to ${what}: ${errorMessage(error)}`);
    }
  }
}

class NonProtocolOutput extends Error {}

/** The SDK's stdio reader, when a line passed `maxBufferSize` (it then closes the transport). */
export const STDIO_BUFFER_FULL = /^ReadBuffer exceeded maximum size of \d+ bytes$/;

/** Waits for `promise` to settle, at most `ms` (never rejects). */
function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  return Promise.race([promise.then(() => undefined, () => undefined), limit]).finally(() => clearTimeout(timer));
}

/**
 * What the SDK's stdio reader reports for a stdout line that is not a JSON-RPC message: JSON.parse
 * failed (its message quotes the line's start) or the JSON was not a message (a Zod error).
 */
export function nonProtocolOutput(error: Error): string | undefined {
  let shown: string;
  if (error instanceof SyntaxError) {
    const quoted = /"([\s\S]*)"(\.\.\.)? is not valid JSON$/.exec(error.message);
    shown = quoted ? `'${quoted[1] ?? ''}${quoted[2] ? '…' : ''}'` : 'a line that is not JSON';
  } else if (error.name === 'ZodError') {
    shown = 'a JSON line that is not a JSON-RPC message';
  } else {
    return undefined;
  }
  return `wrote non-protocol text on stdout: ${shown} — servers must log to stderr`;
}

/** A JSON-RPC error answer (bad params, unknown tool...): the server is fine and said no. */
class ProtocolRefusal extends Error {}

/** A reply to tools/call that is not a valid result: the tool may well have run. */
class MalformedReply extends Error {}

/**
 * The SDK's own verdicts on a reply, as opposed to an error the server sent: the result failed the
 * CallToolResult schema (a ZodError), or its structured content failed the tool's output schema.
 */
function isMalformedReply(error: unknown): boolean {
  if (error instanceof Error && (error.name === 'ZodError' || error.name === '$ZodError')) return true;
  return error instanceof McpError && /output schema but did not return structured content|Structured content does not match the tool's output schema|Failed to validate structured content/.test(error.message);
}

function startReason(error: unknown, launch: ServerLaunch): string {
  const code = (error as { code?: unknown } | null)?.code;
  // spawn says ENOENT for a missing working folder too; name the right culprit.
  if (code === 'ENOENT' && !existsSync(launch.cwd)) return `working folder does not exist: ${launch.cwd}`;
  if (code === 'ENOENT') return `command not found: ${launch.command}`;
  if (code === 'EACCES') return `command is not executable: ${launch.command}`;
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) return 'it exited before completing the MCP handshake';
  return errorMessage(error);
}
