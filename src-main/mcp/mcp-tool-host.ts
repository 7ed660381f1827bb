import { reviewedSampling, type ReviewSample } from './reviewed-sampling';
import { statSync } from 'node:fs';
import path from 'node:path';
import type { Progress, Prompt, Resource, Tool } from '@modelcontextprotocol/sdk/types.js';
import { McpServerSpec } from '@shared/contracts/spec';
import type { ToolExecution } from '@shared/contracts/round';
import { ToolAnnotationHints, type ToolEffect } from '@shared/contracts/tool-effect';
import { ToolSnapshot, type JsonSchemaObject, type OfferedTool } from '@shared/contracts/tool-snapshot';
import { maskArguments } from '@shared/util/mask';
import { maskedArgumentNames, type McpCalled } from '@shared/contracts/server-call';
import { LOCAL_ONLY, type PrivacyPolicy } from '@shared/policy/privacy';
import { hashJson } from '../util/hash';
import { resolveToolEffect } from '@shared/policy/effect-registry';
import { deprecatedUseText, type DeprecatedFeature } from '@shared/contracts/mcp-revision';
import { McpCallError, McpStartError, McpToolConfigError, McpLaunchError, errorMessage } from './errors';
import type { CallOptions, CallOutcome } from './server-connection';
import type { McpConnection } from './mcp-connection';
import { offerResourceTool, readResourceToolName, resourceText } from './resource-tool';
import type { ElicitationAsk, ElicitationReply, SamplingAsk, SamplingReply } from './client-capabilities';
import type { CredentialStore } from '../credentials/credential-store';
import { connectTarget, resolveTarget, type ServerTarget } from './server-target';
import type { ConsentAction } from './oauth/sign-in';

/**
 * Shows a server's authorization page to the person mid-run (`why`: what the server asks for, in
 * words). `settled`, where given, says how the consent ended once the page's answer is in
 * (sign-in.ts consentFlow): what the run's trace records (recorded-elicitation.ts recordedConsent).
 */
export type OAuthConsent = (server: string, authorizationUrl: URL, why: string, settled?: Promise<ConsentAction>) => Promise<void>;
import type { ExecuteRequest, ToolHost, ToolProgress } from './tool-host';
import { throttleReports, type Throttled } from './progress-throttle';
import { progressText } from './progress-event';
import { toolResultText } from './tool-result';

export interface ToolHostOptions {
  /** Values for `${name}` in server args and env, e.g. `{ workspace: '/abs/folder' }`. */
  vars: Record<string, string>;
  /** The spec's `tool_effects` (`serverId/tool` → effect); they win over shipped defaults. */
  overrides: Record<string, ToolEffect>;
  /** Working directory of every server process. */
  cwd: string;
  /** Resolved `keychain:NAME` values for server env (see server-launch.ts). */
  credentials?: ReadonlyMap<string, string>;
  /** Handshake deadline per server (default 20 s). */
  startTimeoutMs?: number;
  /** Deadline per tools/list and tools/call request (default 60 s). */
  callTimeoutMs?: number;
  /** Server stderr lines and host notes, prefixed `[mcp <id>]`. */
  onLog?: (line: string) => void;
  /** "still waiting for X to list its tools (10 s)…" while a listing is slow (else to onLog). */
  onProgress?: (line: string) => void;
  /** How often that line comes (default 10 s). */
  progressIntervalMs?: number;
  /** Which hosts a remote (`url`) server may be on; local only when absent. */
  privacy?: PrivacyPolicy;
  /** The privacy log: every tool call sent to a remote server, before it is sent. */
  onSent?: (call: McpCalled) => void;
  /** The OS keychain: a remote server without its own Authorization header uses its OAuth sign-in from here. */
  oauthStore?: CredentialStore;
  /** Each OAuth access token as it is first sent (name `oauth.<server id>`): the run masks it like a keychain value. */
  onSecret?: (name: string, value: string) => void;
  /**
   * A person who can consent in the browser mid-run: a server asking for a wider scope (403
   * `insufficient_scope`) or whose sign-in went stale shows them its authorization page, and the
   * call goes on after. Absent: such a call fails, saying how to sign in.
   */
  oauthConsent?: OAuthConsent;
  /** The folders a server is told are its roots (roots/list); default: the `workspace` variable. */
  roots?: readonly string[];
  /** A person answers a server's elicitation (never a model); without it servers are told Steward does not support it. */
  onElicit?: (ask: ElicitationAsk) => Promise<ElicitationReply>;
  /** The run waits durably for a person: a 2026-07-28 server may ask it for input mid-call (issue 30). */
  elicitsDurably?: boolean;
  /** The run's model answers a sampling request, for servers whose spec sets `sampling: true` only. */
  onSample?: (ask: SamplingAsk) => Promise<SamplingReply>;
  /** A person allows or denies each sampling request of a server with `sampling: "ask"` first; absent: those are denied. */
  onReviewSample?: ReviewSample;
  /** Which model answers sampling (shown to the person reviewing). */
  sampleModel?: string;
  /**
   * A tool call's progress as its server reports it: the first report, then at most one per
   * `progressThrottleMs`. When absent, it goes to `onProgress` as a line (a run's live notice).
   */
  onToolProgress?: (progress: ToolProgress) => void;
  /** Default 1 s. */
  progressThrottleMs?: number;
}

export type { ToolProgress };

/** What the model is told of a reply that is not a valid tool result (the detail goes to the log only). */
export const MALFORMED_REPLY = "the server's reply was malformed; the call may have run";
const DEFAULT_PROGRESS_THROTTLE_MS = 1_000;

/** One server as the UI or a test sees it. */
export interface McpServerStatus {
  id: string;
  pid: number | null;
  alive: boolean;
  /** `serverInfo.name` from the handshake. */
  server_name?: string;
  /** The MCP protocol revision the handshake settled on (e.g. "2025-11-25"). */
  protocol_version?: string;
  /** Features deprecated in MCP 2026-07-28 this (older) server uses: they keep working, the registry marks them. */
  deprecated_features?: DeprecatedFeature[];
  package?: string;
  /** A remote server's address (no query). */
  url?: string;
  /** Last stderr lines (at most 20). */
  stderr: string[];
}

/**
 * `server ID: NAME, speaks MCP 2025-11-25` per server, as `steward validate` lists them, each followed
 * by the deprecated features it uses (`    sends log messages (logging) — deprecated in MCP 2026-07-28, still supported for this server`).
 */
export function serverLines(status: readonly McpServerStatus[]): string[] {
  return status.flatMap((s) => [
    `  server ${s.id}: ${s.server_name ?? 'unnamed server'}, speaks MCP ${s.protocol_version ?? '(revision not known)'}`,
    ...(s.deprecated_features ?? []).map((feature) => `    ${deprecatedUseText(feature)}`),
  ]);
}

/** The servers' status of a host that knows it (a test's injected host may not: none). */
export function statusOf(host: ToolHost): McpServerStatus[] {
  return 'status' in host && typeof host.status === 'function' ? (host as McpToolHost).status() : [];
}

export interface McpToolHost extends ToolHost {
  status(): McpServerStatus[];
  catalog(): Promise<{ server: string; resources: Resource[]; prompts: Prompt[] }[]>;
}

const DEFAULT_START_TIMEOUT_MS = 20_000;
const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/**
 * Starts every server in parallel and returns the run's ToolHost. All or nothing: if one server does
 * not start, the others are closed and McpStartError says which one and why.
 */
export async function startToolHost(servers: McpServerSpec[], options: ToolHostOptions): Promise<McpToolHost> {
  // Callers hand in parsed specs; re-checking is cheap and keeps a hand-built one from failing obscurely.
  servers.forEach((spec, i) => {
    const parsed = McpServerSpec.safeParse(spec);
    if (!parsed.success) {
      const id = typeof spec?.id === 'string' ? spec.id : `#${i + 1}`;
      throw new McpStartError(id, `invalid server spec: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'spec'}: ${issue.message}`).join('; ')}`);
    }
  });
  const seen = new Set<string>();
  for (const spec of servers) {
    if (seen.has(spec.id)) throw new McpToolConfigError(`two MCP servers share the id "${spec.id}"`);
    seen.add(spec.id);
  }
  // Resolve every launch (and check every remote host) before spawning or sending anything: a typo
  // in one spec, or a host the privacy policy does not allow, should not start the others.
  const privacy = options.privacy ?? LOCAL_ONLY;
  const targets: ServerTarget[] = servers.map((spec) => {
    try {
      const consent = options.oauthConsent;
      return resolveTarget(spec, { vars: options.vars, cwd: options.cwd, credentials: options.credentials, privacy, oauthStore: options.oauthStore, onSecret: options.onSecret, ...(consent ? { consent: { open: (url: URL, why: string, settled?: Promise<ConsentAction>) => consent(spec.id, url, why, settled) } } : {}) });
    } catch (error) {
      throw new McpStartError(spec.id, error instanceof McpLaunchError ? error.message : errorMessage(error));
    }
  });
  const roots = options.roots ?? (options.vars.workspace === undefined ? [] : [options.vars.workspace]);
  // Each server's own deadlines (spec `timeouts`) win over the run's.
  const connectOptions = (spec: McpServerSpec) => ({
    startTimeoutMs: spec.timeouts?.start_ms ?? options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
    callTimeoutMs: spec.timeouts?.call_ms ?? options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    onLog: options.onLog,
    onProgress: options.onProgress,
    progressIntervalMs: options.progressIntervalMs,
    roots: rootsOf(targets[servers.indexOf(spec)], roots),
    // Bound to the server here, so a remote connection knows who asks too.
    ...(options.onElicit ? { onElicit: bindServer(options.onElicit, spec.id) } : {}),
    ...(options.elicitsDurably ? { elicitsDurably: true } : {}),
    ...(options.onSample && spec.sampling === true ? { onSample: bindServer(options.onSample, spec.id) } : {}),
    ...(options.onSample && spec.sampling === 'ask' ? { onSample: bindServer(reviewedSampling(options.onSample, options.onReviewSample, options.sampleModel ?? 'the run\'s student model'), spec.id) } : {}),
  });
  const settled = await Promise.allSettled(
    servers.map((spec, i) => connectTarget(spec.id, targets[i] as ServerTarget, connectOptions(spec))),
  );
  const started = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((c) => c.close()));
    throw failed.reason instanceof McpStartError ? failed.reason : new McpStartError('?', errorMessage(failed.reason));
  }
  return new McpToolHostImpl(servers, started, options.overrides, targets, options);
}

class McpToolHostImpl implements McpToolHost {
  private readonly byId = new Map<string, { spec: McpServerSpec; conn: McpConnection; target?: ServerTarget }>();
  private closing: Promise<void> | undefined;

  constructor(
    private readonly specs: McpServerSpec[],
    private readonly conns: McpConnection[],
    private readonly overrides: Record<string, ToolEffect>,
    private readonly targets: readonly ServerTarget[] = [],
    private readonly options: Pick<ToolHostOptions, 'onSent' | 'onLog' | 'onProgress' | 'onToolProgress' | 'progressThrottleMs'> = {},
  ) {
    specs.forEach((spec, i) => {
      const conn = conns[i];
      if (conn) this.byId.set(spec.id, { spec, conn, target: targets[i] });
    });
  }

  async snapshot(round: number): Promise<ToolSnapshot> {
    this.assertOpen();
    const listed = await Promise.all(this.specs.map((spec) => this.server(spec.id).conn.listTools()));
    // Resources offered through Steward's read tool are listed once per run.
    this.resources ??= await Promise.all(this.specs.map((spec) => (spec.offer_resources === true ? this.server(spec.id).conn.listResources() : [])));
    // Offered tools are rebuilt (cloned, hashed, classified) only when some server's list changed.
    const versions = this.specs.map((spec) => this.server(spec.id).conn.toolsVersion).join(',');
    if (this.offered?.versions !== versions) this.offered = { versions, ...this.buildOffered(listed, this.resources) };
    return { round, tools: this.offered.tools, hash: this.offered.hash };
  }

  private offered: { versions: string; tools: OfferedTool[]; hash: string } | undefined;
  private resources: Resource[][] | undefined;

  /** Each server's resources and prompts, as the registry's inspection lists them. */
  async catalog(): Promise<{ server: string; resources: Resource[]; prompts: Prompt[] }[]> {
    this.assertOpen();
    return Promise.all(
      this.specs.map(async (spec) => {
        const conn = this.server(spec.id).conn;
        return { server: spec.id, resources: await conn.listResources(), prompts: await conn.listPrompts() };
      }),
    );
  }

  private buildOffered(listed: Tool[][], resources: Resource[][]): { tools: OfferedTool[]; hash: string } {
    const tools: OfferedTool[] = [];
    const owner = new Map<string, string>();
    this.specs.forEach((spec, i) => {
      const conn = this.server(spec.id).conn;
      for (const tool of allowlisted(spec, listed[i] ?? [])) {
        // A tool the server made for its own UI only is never offered to a model.
        if (appOnly(tool)) {
          if (spec.tools === undefined) continue;
          throw new McpToolConfigError(`MCP server "${spec.id}" marks tool "${tool.name}" for its app only (_meta.ui.visibility): a model is never offered it; remove it from "tools"`);
        }
        const other = owner.get(tool.name);
        if (other !== undefined) {
          throw new McpToolConfigError(
            `tool "${tool.name}" is offered by both MCP servers "${other}" and "${spec.id}"; list the tools you want with "tools" on one of them`,
          );
        }
        owner.set(tool.name, spec.id);
        tools.push(this.offer(spec, conn, tool));
      }
      if (spec.offer_resources === true) {
        const reader = offerResourceTool(spec.id, resources[i] ?? [], this.overrides);
        if (owner.has(reader.name)) throw new McpToolConfigError(`MCP server "${owner.get(reader.name)}" offers a tool "${reader.name}", the name of Steward's resource tool for "${spec.id}"`);
        owner.set(reader.name, spec.id);
        tools.push(reader);
      }
    });
    const hash = hashJson(tools.map((t) => ({ name: t.name, server: t.server, schema_hash: t.schema_hash })));
    // Validated once per change, then frozen: every round shares it and nobody may alter it.
    return deepFreeze(ToolSnapshot.parse({ round: 0, tools, hash }));
  }

  async execute(request: ExecuteRequest): Promise<ToolExecution> {
    this.assertOpen();
    const { decision, tool, idempotency_key, signal } = request;
    // Fail closed: the call must be the one the boundary authorized for this offered tool.
    if (decision.tool_name !== tool.name) {
      throw new McpCallError(tool.server, `decision calls "${decision.tool_name}" but the authorized tool is "${tool.name}"`);
    }
    const entry = this.byId.get(tool.server);
    if (!entry) throw new McpCallError(tool.server, `no MCP server "${tool.server}" in this run`);
    const args = structuredClone(decision.arguments);
    if (entry.target?.kind === 'remote') this.recordSent(tool.server, tool.name, entry.target, args);
    const started = performance.now();
    const timeoutMs = lookupOwn(entry.spec.timeouts?.tools, tool.name);
    const progress = this.progressReporter(tool.server, tool.name, request.onProgress);
    const options = { signal, timeoutMs, onProgress: progress && ((p: Progress) => progress.push(p)), ...(request.pauseForInput ? { pauseForInput: true } : {}), ...(request.continueWith ? { continueWith: request.continueWith } : {}) };
    let outcome: CallOutcome;
    try {
      outcome =
        entry.spec.offer_resources === true && tool.name === readResourceToolName(tool.server)
          ? await this.readResource(entry.conn, args, options)
          : await entry.conn.callTool(tool.name, args, request.traceparent ? { ...options, traceparent: request.traceparent } : options);
    } finally {
      // The last report the throttle kept comes before the call's result, never after it.
      progress?.end();
    }
    const duration_ms = Math.max(0, performance.now() - started);
    if (outcome.kind === 'malformed') this.options.onLog?.(`[mcp ${tool.server}] ${tool.name}: malformed reply: ${outcome.detail.slice(0, 300)}`);
    // Built here from typed parts (the server's reply was checked where it crossed the process boundary): not parsed again.
    const execution: ToolExecution = {
      server: tool.server,
      tool: tool.name,
      arguments: maskArguments(structuredClone(decision.arguments), tool.effect.sensitive_arguments),
      idempotency_key,
      ...executionOutcome(outcome),
      duration_ms,
    };
    return execution;
  }

  /** The privacy log's line for a call about to go to a remote server: names and size, no values. */
  private recordSent(server: string, name: string, target: Extract<ServerTarget, { kind: 'remote' }>, args: Record<string, unknown>): void {
    const bytes = Buffer.byteLength(JSON.stringify({ name, arguments: args }), 'utf8');
    this.options.onSent?.({ server, tool: name, host: target.endpoint.host, local: target.endpoint.local, arguments: maskedArgumentNames(args), bytes });
  }

  /** Steward's resource tool: `resources/read` of the URI asked for, its contents as the tool's text. */
  private async readResource(conn: McpConnection, args: Record<string, unknown>, options: CallOptions): Promise<CallOutcome> {
    if (typeof args.uri !== 'string') return { kind: 'protocol_error', message: 'uri must be a string' };
    const read = await conn.readResource(args.uri, options);
    return read.kind === 'result' ? { kind: 'result', result: { content: [{ type: 'text', text: resourceText(read.result) }] } } : read;
  }

  /** Progress of one call, thinned out: the first report, then at most one per throttle interval, and the last. */
  private progressReporter(server: string, tool: string, forCall: ((progress: ToolProgress) => void) | undefined): Throttled<Progress> | undefined {
    const report = forCall ?? this.options.onToolProgress ?? progressLine(this.options.onProgress);
    if (!report) return undefined;
    const every = this.options.progressThrottleMs ?? DEFAULT_PROGRESS_THROTTLE_MS;
    return throttleReports<Progress>(({ progress, total, message }) => {
      report({ server, tool, progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message: message.slice(0, 200) }) });
    }, every);
  }

  status(): McpServerStatus[] {
    return this.specs.map((spec) => {
      const conn = this.server(spec.id).conn;
      const name = conn.serverName;
      return {
        id: spec.id,
        pid: conn.pid,
        alive: conn.alive,
        ...(name === undefined ? {} : { server_name: name }),
        ...(conn.protocolVersion === undefined ? {} : { protocol_version: conn.protocolVersion }),
        ...(conn.deprecatedFeatures?.length ? { deprecated_features: [...conn.deprecatedFeatures] } : {}),
        ...(spec.package === undefined ? {} : { package: spec.package }),
        ...(conn.remote === undefined ? {} : { url: conn.remote }),
        stderr: conn.tail.all(),
      };
    });
  }

  close(): Promise<void> {
    this.closing ??= Promise.all(this.conns.map((c) => c.close())).then(() => undefined);
    return this.closing;
  }

  private offer(spec: McpServerSpec, conn: McpConnection, tool: Tool): OfferedTool {
    // A deep copy: the round keeps exactly what was hashed, whatever the server says later.
    const input_schema = structuredClone(tool.inputSchema) as JsonSchemaObject;
    const { effect, source } = resolveToolEffect({
      serverId: spec.id,
      packageName: spec.package,
      serverName: conn.serverName,
      tool: tool.name,
      overrides: this.overrides,
    });
    const hints = tool.annotations === undefined ? undefined : ToolAnnotationHints.safeParse(tool.annotations);
    return {
      name: tool.name,
      server: spec.id,
      description: tool.description ?? '',
      input_schema,
      schema_hash: hashJson(input_schema),
      effect,
      effect_source: source,
      // Untrusted: shown as suggestions, never used to decide. A malformed hint is dropped, not fatal.
      ...(hints?.success ? { hints: hints.data } : {}),
    };
  }

  private server(id: string): { spec: McpServerSpec; conn: McpConnection } {
    const entry = this.byId.get(id);
    if (!entry) throw new McpCallError(id, `no MCP server "${id}" in this run`);
    return entry;
  }

  private assertOpen(): void {
    if (this.closing) throw new Error('the MCP tool host is closed');
  }
}

/**
 * A server's roots: the run's workspace, except for a stdio server started with folders of its own
 * (the filesystem server's `${workspace}/notes`): those stay its roots. A server such as the
 * filesystem server replaces its folders with the client's roots, which must never widen them.
 */
function rootsOf(target: ServerTarget | undefined, workspace: readonly string[]): readonly string[] {
  if (target?.kind !== 'stdio') return workspace;
  const folders = target.launch.args.filter((arg) => path.isAbsolute(arg) && isFolder(arg));
  return folders.length > 0 ? folders : workspace;
}

function isFolder(candidate: string): boolean {
  try {
    return statSync(candidate).isDirectory();
  } catch {
    return false;
  }
}

function bindServer<A extends { server: string }, R>(answer: (ask: A) => Promise<R>, server: string): (ask: A) => Promise<R> {
  return (ask) => answer({ ...ask, server });
}

/** `[mcp db] query: 3 of 8 (37%) — scanning table 3`: a progress report as a notice line. */
function progressLine(onProgress: ((line: string) => void) | undefined): ((progress: ToolProgress) => void) | undefined {
  if (!onProgress) return undefined;
  return (progress) => onProgress(progressText(progress));
}

/**
 * What a call's outcome tells the model and the ledger. A malformed reply is `ok: false` (the call
 * may have run: its key is spent) with one short message, never the validator's dump.
 */
function executionOutcome(outcome: CallOutcome): Pick<ToolExecution, 'ok' | 'is_error' | 'content' | 'error'> {
  switch (outcome.kind) {
    case 'result':
      return { ok: true, ...toolResultText(outcome.result) };
    case 'protocol_error':
      return { ok: true, is_error: true, content: outcome.message };
    case 'malformed':
      return { ok: false, is_error: true, content: MALFORMED_REPLY, error: MALFORMED_REPLY };
  }
}

/** `_meta.ui.visibility` (MCP Apps) that leaves out the model: the tool is for the server's app view only. */
export function appOnly(tool: Pick<Tool, '_meta'>): boolean {
  const ui = tool._meta?.ui;
  const visibility = ui !== null && typeof ui === 'object' ? (ui as { visibility?: unknown }).visibility : undefined;
  return Array.isArray(visibility) && !visibility.includes('model');
}

function lookupOwn(table: Readonly<Record<string, number>> | undefined, key: string): number | undefined {
  return table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}

/** Applies the spec's `tools` allowlist; naming a tool the server lacks is a configuration error. */
function allowlisted(spec: McpServerSpec, tools: Tool[]): Tool[] {
  if (spec.tools === undefined) return tools;
  const names = new Set(tools.map((t) => t.name));
  const unknown = spec.tools.filter((name) => !names.has(name));
  if (unknown.length > 0) {
    throw new McpToolConfigError(
      `MCP server "${spec.id}" has no tool ${unknown.map((n) => `"${n}"`).join(', ')} (it offers: ${[...names].sort().join(', ') || 'nothing'}); fix its "tools" list`,
    );
  }
  const allowed = new Set(spec.tools);
  return tools.filter((t) => allowed.has(t.name));
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
