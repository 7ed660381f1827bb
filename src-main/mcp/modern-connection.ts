import { InsufficientScopeError, UnauthorizedError, SdkError, SdkErrorCode, SdkHttpError, ProtocolError, StreamableHTTPClientTransport, type CallToolRequest, type CallToolRequestOptions, type Client, type InputRequiredResult, type JSONRPCMessage } from '@modelcontextprotocol/client';
import type { Transport as LegacyTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, ListPromptsResultSchema, ListResourcesResultSchema, ListToolsResultSchema, ReadResourceResultSchema, type Prompt, type ReadResourceResult, type Resource, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { McpAnswerTooLargeError, McpCallError, McpStartError, errorMessage, protocolRefusalText } from './errors';
import { AnswerTooLarge, MAX_MCP_MESSAGE_BYTES } from './answer-bound';
import { BoundedHttp } from './bounded-http';
import { formatBytes } from '../providers/http-call';
import type { McpConnection } from './mcp-connection';
import { MODERN_REVISION, newModernClient, sortInputRequests } from './modern-client';
import { InputRequiredPause, type InputContinuation } from './input-pause';
import { MAX_INPUT_ROUNDS } from '@shared/contracts/server-input';
import { pinnedMcpFetch, type RemoteEndpoint } from './remote-endpoint';
import type { RemoteAuth } from './oauth/oauth-fetch';
import { SignInRequiredError } from './oauth/keychain-oauth-provider';
import type { CallOptions, CallOutcome, ConnectOptions } from './server-connection';
import { followToolChanges } from './tool-changes';

/** A try at 2026-07-28: connected, or the server speaks an older revision (why, for the log). */
export type ModernAttempt = { kind: 'modern'; conn: ModernConnection } | { kind: 'older'; why: string };

const NO_STDERR = { all: (): string[] => [] };

/**
 * A remote server on MCP 2026-07-28 (issue 30), over Streamable HTTP through the SDK v2 client:
 * no session and no `initialize` (the client sends `server/discover`, then carries the revision,
 * its name and its capabilities in every request's `_meta`), each result's `resultType` read by
 * the SDK, and a server's `input_required` answered through the run's own elicitation (a person),
 * sampling and roots, then retried with the answers and the server's `requestState`.
 *
 * The same fences as the 2025 connection: every request to the endpoint's origin only (pinned
 * fetch), every answer bounded (BoundedHttp), OAuth tokens from the keychain (`auth`). Results are
 * checked against the 2025 SDK's schemas, so the host sees one shape whatever the revision.
 */
export class ModernConnection implements McpConnection {
  private closing: Promise<void> | undefined;
  private exited = false;
  private toolList: Tool[] | undefined;
  private toolListVersion = 0;
  readonly pid = null;
  readonly tail = NO_STDERR;

  private constructor(
    readonly id: string,
    private readonly client: Client,
    private readonly options: ConnectOptions,
    readonly remote: string,
  ) {}

  /**
   * Asks the server for 2026-07-28 (`server/discover`). A server that does not offer it (a 2025
   * server refuses the request, an HTTP+SSE one answers 4xx) is `older`: the caller connects the
   * 2025 way. No answer within the start deadline, or a sign-in that is needed, ends the start here
   * (the 2025 handshake would only wait or ask again).
   */
  static async connect(id: string, endpoint: RemoteEndpoint, headers: Readonly<Record<string, string>>, options: ConnectOptions, auth?: RemoteAuth): Promise<ModernAttempt> {
    let streamCut: (error: AnswerTooLarge) => void = () => undefined;
    const bound = new BoundedHttp(MAX_MCP_MESSAGE_BYTES, (error) => streamCut(error));
    const fetch = bound.fetch(auth ? auth(pinnedMcpFetch(endpoint)) : pinnedMcpFetch(endpoint));
    const transport = new StreamableHTTPClientTransport(endpoint.url, { requestInit: { headers: { ...headers } }, fetch, redirectPolicy: 'same-origin' });
    // The bound's watch only replaces `send` (its shape is the same in both SDKs).
    bound.watch(transport as unknown as LegacyTransport);
    completeWhenUnsaid(transport);
    const client = newModernClient({ ...options, probeTimeoutMs: options.startTimeoutMs });
    const conn = new ModernConnection(id, client, options, endpoint.display);
    streamCut = (error) => options.onLog?.(`[mcp ${id}] a message on its event stream passed ${formatBytes(error.limit)}; Steward stopped reading it`);
    client.onclose = () => conn.onClosed();
    client.onerror = (error) => options.onLog?.(`[mcp ${id}] ${errorMessage(error)}`);
    try {
      await client.connect(transport, { timeout: options.startTimeoutMs });
    } catch (error) {
      conn.closing = client.close().catch(() => undefined);
      await conn.closing;
      const signIn = signInNeeded(error);
      if (signIn) throw new McpStartError(id, signIn.message);
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
        throw new McpStartError(id, `no answer to the MCP handshake from ${endpoint.display} within ${options.startTimeoutMs} ms`);
      }
      // A refusal for want of (enough) authorization is the server's answer on any revision: asking
      // again the 2025 way would only run the sign-in flow a second time.
      const refused = causeOf(error, (e): e is SdkHttpError => e instanceof SdkHttpError);
      if (refused && (refused.status === 401 || refused.status === 403)) {
        throw new McpStartError(id, `${endpoint.display} answered HTTP ${refused.status} (check its headers: the keychain value must be the whole header, e.g. "Bearer …")`);
      }
      const scope = causeOf(error, (e): e is InsufficientScopeError | UnauthorizedError => e instanceof InsufficientScopeError || e instanceof UnauthorizedError);
      if (scope) throw new McpStartError(id, `${endpoint.display} refused the sign-in's token: ${scope.message}`);
      return { kind: 'older', why: errorMessage(error) };
    }
    options.onLog?.(`[mcp ${id}] connected to ${endpoint.display} over Streamable HTTP, MCP ${conn.protocolVersion ?? MODERN_REVISION} (${conn.serverName ?? 'unnamed server'})`);
    return { kind: 'modern', conn };
  }

  /**
   * A connection over a client its caller connected on 2026-07-28 (a stdio process:
   * modern-stdio-connection.ts, which adds the process's fences); `where` names it in messages.
   */
  static adopt(id: string, client: Client, options: ConnectOptions, where: string): ModernConnection {
    const conn = new ModernConnection(id, client, options, where);
    client.onclose = () => conn.onClosed();
    return conn;
  }

  /**
   * Follows the server's tool list through `subscriptions/listen` (2026-07-28's replacement for the
   * unsolicited `notifications/tools/list_changed`): a change makes the next listTools fetch anew.
   */
  followToolChanges(): void {
    followToolChanges(this.client, this.id, () => this.invalidateTools(), this.options.onLog);
  }

  /** The next listTools fetches the list anew. */
  invalidateTools(): void {
    this.toolList = undefined;
  }

  get protocolVersion(): string | undefined {
    return this.client.getNegotiatedProtocolVersion();
  }

  get serverName(): string | undefined {
    return this.client.getServerVersion()?.name;
  }

  get alive(): boolean {
    return !this.exited;
  }

  get toolsVersion(): number {
    return this.toolListVersion;
  }

  /** Every tool (all pages), fetched once per connection. */
  async listTools(): Promise<Tool[]> {
    this.assertAlive();
    if (this.toolList) return this.toolList;
    const listed = await this.request('list its tools', () => this.client.listTools(undefined, { timeout: this.options.callTimeoutMs }));
    const parsed = ListToolsResultSchema.safeParse({ tools: listed.tools });
    if (!parsed.success) throw new McpCallError(this.id, `MCP server "${this.id}" sent a tool list Steward cannot read: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    this.toolList = parsed.data.tools;
    this.toolListVersion += 1;
    return this.toolList;
  }

  /**
   * One tool call. A server that asks for input mid-call is answered (the run's elicitation) and
   * the call retried inside this one call — or, with `pauseForInput` (a run that waits durably), a
   * question for a person pauses it (InputRequiredPause) and `continueWith` later goes on with it; its deadline restarts with each progress report.
   * `traceparent` (W3C trace context) goes in the request's `_meta`, so the server's spans can join
   * the run's trace.
   */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallOutcome> {
    const { signal, onProgress } = options;
    const timeout = options.timeoutMs ?? this.options.callTimeoutMs;
    this.assertAlive();
    if (signal?.aborted) throw new McpCallError(this.id, `call to "${this.id}/${name}" was aborted before it was sent`);
    const params = { name, arguments: args, ...(options.traceparent ? { _meta: { traceparent: options.traceparent } } : {}) };
    let raw: unknown;
    try {
      const call = { timeout, resetTimeoutOnProgress: true, signal, onprogress: (p: Parameters<NonNullable<CallOptions['onProgress']>>[0]) => onProgress?.(p) };
      raw =
        options.pauseForInput || options.continueWith
          ? await this.callPausing(name, params, call, options.continueWith, signal, timeout)
          : await this.request(`run "${name}"`, () => this.client.callTool(params, call), signal, timeout);
    } catch (error) {
      if (error instanceof Refused) return { kind: 'protocol_error', message: error.message };
      if (error instanceof Malformed) return { kind: 'malformed', detail: error.message };
      throw error;
    }
    const result = CallToolResultSchema.safeParse(raw);
    return result.success ? { kind: 'result', result: result.data } : { kind: 'malformed', detail: result.error.issues.map((i) => i.message).join('; ') };
  }

  /**
   * A call whose server may ask for input (2026-07-28, manual mode; issue 30): the SDK hands each
   * `input_required` answer back. What the host answers at once (roots, sampling) is sent straight
   * back with the server's `requestState`; a question for a person pauses the call
   * (InputRequiredPause), which the run continues later with `continueWith`.
   */
  private async callPausing(name: string, params: { name: string; arguments: Record<string, unknown>; _meta?: { traceparent: string } }, call: CallToolRequestOptions, continueWith: InputContinuation | undefined, signal: AbortSignal | undefined, timeout: number): Promise<unknown> {
    let next: InputContinuation | undefined = continueWith;
    for (let round = 0; ; round += 1) {
      const sent = next === undefined ? params : { ...params, inputResponses: next.inputResponses, ...(next.requestState !== undefined ? { requestState: next.requestState } : {}) };
      const raw: unknown = await this.request(`run "${name}"`, () => this.client.callTool(sent as CallToolRequest['params'], { ...call, allowInputRequired: true }), signal, timeout);
      if (!isInputRequired(raw)) return raw;
      if (round >= MAX_INPUT_ROUNDS) throw new Refused('the server kept asking for input (more rounds than Steward answers for one request)');
      const sorted = await this.request(`answer "${name}"'s input request`, () => sortInputRequests(raw.inputRequests ?? {}, this.options), signal, timeout);
      if (sorted.asks.length > 0) throw new InputRequiredPause(this.id, sorted.asks, sorted.responses, raw.requestState);
      next = { inputResponses: sorted.responses, ...(raw.requestState !== undefined ? { requestState: raw.requestState } : {}) };
    }
  }

  async listResources(): Promise<Resource[]> {
    this.assertAlive();
    if (!this.client.getServerCapabilities()?.resources) return [];
    const listed = await this.request('list its resources', () => this.client.listResources(undefined, { timeout: this.options.callTimeoutMs }));
    return ListResourcesResultSchema.parse({ resources: listed.resources }).resources;
  }

  async listPrompts(): Promise<Prompt[]> {
    this.assertAlive();
    if (!this.client.getServerCapabilities()?.prompts) return [];
    const listed = await this.request('list its prompts', () => this.client.listPrompts(undefined, { timeout: this.options.callTimeoutMs }));
    return ListPromptsResultSchema.parse({ prompts: listed.prompts }).prompts;
  }

  async readResource(uri: string, options: CallOptions = {}): Promise<{ kind: 'result'; result: ReadResourceResult } | { kind: 'protocol_error'; message: string }> {
    const { signal } = options;
    const timeout = options.timeoutMs ?? this.options.callTimeoutMs;
    this.assertAlive();
    try {
      const read = await this.request(`read ${uri}`, () => this.client.readResource({ uri }, { timeout, signal, cacheMode: 'bypass' }), signal, timeout);
      return { kind: 'result', result: ReadResourceResultSchema.parse(read) };
    } catch (error) {
      if (error instanceof Refused) return { kind: 'protocol_error', message: error.message };
      if (error instanceof Malformed) throw new McpCallError(this.id, `MCP server "${this.id}" sent a reply Steward cannot read when asked to read ${uri}`);
      throw error;
    }
  }

  close(): Promise<void> {
    this.closing ??= this.client.close().catch((error: unknown) => {
      this.options.onLog?.(`[mcp ${this.id}] close: ${errorMessage(error)}`);
    });
    return this.closing;
  }

  private onClosed(): void {
    if (!this.closing) this.exited = true;
  }

  private assertAlive(): void {
    if (this.closing) throw new McpCallError(this.id, `MCP server "${this.id}" has been closed`);
    if (this.exited) throw this.lostError();
  }

  private lostError(): McpCallError {
    return new McpCallError(this.id, `the connection to MCP server "${this.id}" (${this.remote}) was lost; its tools are unavailable for the rest of this run`, true);
  }

  /**
   * Runs one request and sorts its failures as the 2025 connection does: a timeout, an abort or a
   * lost connection are call errors (outcome unknown); the server's JSON-RPC error is its answer
   * (`Refused`: the tool did not run); a reply the SDK could not accept is `Malformed` (it may have run).
   */
  private async request<T>(what: string, run: () => Promise<T>, signal?: AbortSignal, timeoutMs = this.options.callTimeoutMs): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (signal?.aborted) throw new McpCallError(this.id, `call to MCP server "${this.id}" was aborted while asked to ${what}`);
      const cut = answerCut(error);
      if (cut) {
        throw new McpAnswerTooLargeError(this.id, `MCP server "${this.id}" sent an answer larger than ${formatBytes(cut.limit)} when asked to ${what}; Steward stopped reading it there (the call may have run)`, cut.limit);
      }
      const signIn = signInNeeded(error);
      if (signIn) throw new McpCallError(this.id, signIn.message);
      // The same words as a 2025 server's refusal: the server's own, the code in the details.
      if (error instanceof ProtocolError) throw new Refused(protocolRefusalText(error));
      if (error instanceof SdkError) {
        switch (error.code) {
          case SdkErrorCode.RequestTimeout:
            throw new McpCallError(this.id, `MCP server "${this.id}" did not answer within ${timeoutMs} ms when asked to ${what}`);
          case SdkErrorCode.ConnectionClosed:
          case SdkErrorCode.NotConnected:
            if (this.closing) throw new McpCallError(this.id, `MCP server "${this.id}" was closed while asked to ${what}`);
            throw this.lostError();
          case SdkErrorCode.InputRequiredRoundsExceeded:
            throw new Refused(`the server kept asking for input (more rounds than Steward answers for one request)`);
          case SdkErrorCode.InvalidResult:
          case SdkErrorCode.UnsupportedResultType:
            throw new Malformed(error.message);
          default:
            break;
        }
      }
      if (this.exited) throw this.lostError();
      throw new McpCallError(this.id, `MCP server "${this.id}" failed to ${what}: ${errorMessage(error)}${causeText(error)}`);
    }
  }
}

/** The SDK's manual-mode hand-back of an `input_required` answer. */
function isInputRequired(raw: unknown): raw is InputRequiredResult {
  return raw !== null && typeof raw === 'object' && (raw as { resultType?: unknown }).resultType === 'input_required';
}

/** A JSON-RPC error answer: the server is fine and said no. */
class Refused extends Error {}

/** A reply that is not a valid result: the call may have run. */
class Malformed extends Error {}

/** The error, or one it was caused by, of a given class. */
function causeOf<T>(error: unknown, is: (e: unknown) => e is T): T | undefined {
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) if (is(e)) return e;
  return undefined;
}

function signInNeeded(error: unknown): SignInRequiredError | undefined {
  return causeOf(error, (e): e is SignInRequiredError => e instanceof SignInRequiredError);
}

function answerCut(error: unknown): AnswerTooLarge | undefined {
  return causeOf(error, (e): e is AnswerTooLarge => e instanceof AnswerTooLarge);
}

/** ` (ECONNREFUSED)` or ` (the cause's words)`: what a bare "fetch failed" hides. */
function causeText(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause === undefined || cause === null) return '';
  const code = (cause as { code?: unknown }).code;
  return typeof code === 'string' ? ` (${code})` : ` (${errorMessage(cause)})`;
}

/**
 * A result without `resultType` is a complete one (SEP-2322: "Client MUST assume resultType
 * complete when not specified"; the conformance suite checks it). The SDK refuses such a result on
 * 2026-07-28, so each answer the transport hands the client gets the default first.
 */
function completeWhenUnsaid(transport: StreamableHTTPClientTransport): void {
  let handler: StreamableHTTPClientTransport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set: (next: StreamableHTTPClientTransport['onmessage']) => {
      // Whatever else the transport passes along (request info) goes through untouched.
      const pass = next as ((message: JSONRPCMessage, ...rest: unknown[]) => void) | undefined;
      handler = pass && ((message: JSONRPCMessage, ...rest: unknown[]) => pass(withResultType(message), ...rest));
    },
  });
}

export function withResultType<T>(message: T): T {
  if (message === null || typeof message !== 'object' || !('result' in message) || !('id' in message)) return message;
  const result = message.result;
  if (result === null || typeof result !== 'object' || Array.isArray(result) || 'resultType' in result) return message;
  return { ...message, result: { ...result, resultType: 'complete' } };
}
