import { z } from 'zod';
import { ChatMessage, ModelRef, ModelUrl } from './model';
import { RunEvent, RunStatus } from './events';
import { RunRow } from '../history/run-summary';
import { SupervisionSpec } from './spec';
import { HostedWorkflow } from './hosted-workflow';
import { EffectOverride, RegisteredServer, RegistryId, ServerRegistration, ToolName, Workspace, WorkspaceRegistration } from './host-registry';
import { ActionResult, AuditRecord, ConfirmationCode, ConfirmResult } from './audit';
import { EffectSource, ToolAnnotationHints, ToolEffect } from './tool-effect';
import { HumanAnswer, Intervention } from './intervention';
import { AskAnswer, PendingAsk } from './person-ask';
import { LearningDataSettings, ProfileKind, ProfileVersionRef, TraceSettings } from './profiles';
import { CredentialInfo, CredentialName, CredentialRef } from './credentials';
import { DeprecatedFeature, SignInClient } from './mcp-revision';
import { DeletedProfile, MAX_SYNCED_RECORDS, ProfileConflict, ProfileDeleteResult, SyncedProfile, WorkflowChoices } from './profile-store';
import { PrivacyPolicy } from '../policy/privacy';
import { AgentCardCheck } from '../pattern/agent-card';
import { GraphProblemRecord, HostedWorkflowGraph, WorkflowInputs, WorkflowSummary } from '../workflow/hosted-graph';
import { LatestEvalReports } from '../eval/report';
import { InjectionCheckStart, InjectionCheckStatus } from '../eval/injection-api';
import { DRAFT_METHODS } from './workflow-draft';
import { MAX_PRICED_MODELS, PriceList } from '../accounting/price-list';
import { WorkflowCost } from '../accounting/workflow-cost';
import { ProfileReplayParams, ProfileReplayResult, TeacherReplayParams, TeacherReplayStart, TeacherReplayStatus } from './profile-replay';
import { ServerTrust } from './server-trust';
import { TrialStartParams, TrialStartResult, TrialStatusResult } from '../learning/trial-api';
import { MetricsPoint, PromotionMetrics } from '../policy/promotion';
import { LearningKind } from './learning-export';
import { Verdict } from './verdict';

/**
 * The host API: one contract for both transports (Electron IPC and the browser-run WebSocket).
 * Each method has a params schema and a result schema; both sides validate on arrival.
 */

export const HostInfo = z
  .object({
    app: z.literal('steward'),
    version: z.string(),
    shell: z.enum(['browser', 'electron']),
    /** The demo workspace is available (it always is; it needs no model server). */
    demo: z.boolean(),
    /** The host's event journal (a page resumes from its own cursor in it, kept per journal); absent from older hosts. */
    journal: z.string().min(1).max(100).optional(),
  })
  .strict();
export type HostInfo = z.infer<typeof HostInfo>;

export const OllamaModelInfo = z
  .object({
    name: z.string(),
    size: z.number().optional(),
    family: z.string().optional(),
    parameter_size: z.string().optional(),
    /** From Ollama's `show`: e.g. completion, tools, vision, thinking. Absent when unknown. */
    capabilities: z.array(z.string()).optional(),
  })
  .strict();
export type OllamaModelInfo = z.infer<typeof OllamaModelInfo>;

export const ProviderStatus = z
  .object({
    script: z.object({ available: z.literal(true), label: z.literal('replay') }).strict(),
    ollama: z
      .object({
        host: z.string(),
        reachable: z.boolean(),
        version: z.string().optional(),
        error: z.string().optional(),
        models: z.array(OllamaModelInfo),
      })
      .strict(),
  })
  .strict();
export type ProviderStatus = z.infer<typeof ProviderStatus>;

/** One model an OpenAI-compatible server lists (GET /models): its id, and who owns it when said. */
export const OpenAIModelInfo = z.object({ id: z.string(), owned_by: z.string().optional() }).strict();
export type OpenAIModelInfo = z.infer<typeof OpenAIModelInfo>;

/**
 * An OpenAI-compatible server as the host found it (issue 10: the health check and listing Ollama
 * has). `models` from GET /models; `probe`, when asked for, is one tiny chat call to `model` in its
 * answer mode, proving the key, the model and the mode. Messages name the key's reference, never its value.
 */
export const OpenAIStatus = z
  .object({
    /** The address as shown: no query, no user info. */
    base_url: z.string(),
    reachable: z.boolean(),
    /** The privacy policy lets the host send to this address (local always; another host when listed). */
    allowed: z.boolean(),
    models: z.array(OpenAIModelInfo),
    /** What went wrong and what to do; absent when the list came back. */
    error: z.string().optional(),
    probe: z
      .object({
        ok: z.boolean(),
        model: z.string(),
        mode: z.enum(['structured', 'tools']),
        latency_ms: z.number().int().nonnegative().optional(),
        message: z.string(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type OpenAIStatus = z.infer<typeof OpenAIStatus>;

/**
 * The page's choices for one run. The privacy policy and tool effects are not among them: the host
 * applies its own (privacy.set, effects.set), which only a person can widen or downgrade.
 */
export const RunOverrides = z
  .object({
    supervision_enabled: z.boolean().optional(),
    student: ModelRef.optional(),
    teacher: ModelRef.optional(),
    /** Supervision from the panel (a supervision profile plus the deployment phase). */
    supervision: SupervisionSpec.optional(),
    trace: TraceSettings.optional(),
    learning: LearningDataSettings.optional(),
    /** The profile versions these settings came from, recorded on the run. */
    profiles: z.partialRecord(ProfileKind, ProfileVersionRef).optional(),
    /** Call the models, execute no tool: shows what would have been executed, reviewed, replaced or blocked. */
    dry_run: z.boolean().optional(),
  })
  .strict();

/** One tool of an MCP server as the registry shows it. */
export const InspectedTool = z
  .object({
    name: z.string(),
    description: z.string(),
    input_schema: z.record(z.string(), z.unknown()),
    effect: ToolEffect,
    effect_source: EffectSource,
    /** MCP annotations: untrusted hints, shown as suggestions. */
    hints: ToolAnnotationHints.optional(),
  })
  .strict();
export type InspectedTool = z.infer<typeof InspectedTool>;

/** A resource an MCP server lists (resources/list), as the registry shows it. */
export const InspectedResource = z.object({ uri: z.string(), name: z.string(), description: z.string().optional(), mime_type: z.string().optional() }).strict();
export type InspectedResource = z.infer<typeof InspectedResource>;

/** A prompt an MCP server lists (prompts/list), with its arguments' names. */
export const InspectedPrompt = z
  .object({ name: z.string(), description: z.string().optional(), arguments: z.array(z.object({ name: z.string(), required: z.boolean() }).strict()) })
  .strict();
export type InspectedPrompt = z.infer<typeof InspectedPrompt>;
export type RunOverrides = z.infer<typeof RunOverrides>;

const empty = z.object({}).strict();
/** The identity of the host's event journal (a cursor from another journal means nothing). */
export const JournalId = z.string().min(1).max(100);
/** A position in the journal: events are numbered from 1 as they are appended, and keep their number. */
export const JournalPosition = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
/** Frames of events a page lets the host have in flight to it (credit). */
export const FeedWindow = z.number().int().min(1).max(1_000);
/** A run id as requests name it (runs.delete, runs.otlp). */
export const RunIdParam = z.string().min(1).max(200);
/** Runs one runs.delete request removes at most. */
export const MAX_DELETE_RUNS = 1_000;
/** Learning examples in one learning.examples answer, at most. */
export const MAX_EXAMPLES_PAGE = 500;
/** Where a page of learning examples ended. */
export const ExamplesCursor = z.object({ ts: z.string().max(100), id: z.string().min(1).max(400) }).strict();
/** A learning example as the host lists it: its event, its run's workflow when known, and its whole prompt when asked. */
export const HostedExample = z
  .object({
    event: RunEvent.refine((e) => e.type === 'learning.example', 'a learning.example event'),
    spec_id: z.string().optional(),
    context: z.array(ChatMessage).optional(),
    prompt_problem: z.string().optional(),
  })
  .strict();
export type HostedExample = z.infer<typeof HostedExample>;
/** Points of a promotion chart the host computes at most (the card draws 60). */
export const MAX_PROMOTION_POINTS = 500;
/** Events one runs.import request carries at most (the page sends a file in chunks; a WebSocket message stays under 1 MB). */
export const MAX_IMPORT_EVENTS = 2_000;
/** Events of one run in one runs.events answer, at most (and about 4 MB of them). */
export const MAX_RUN_EVENTS_PAGE = 2_000;

export const HOST_METHODS = {
  'host.info': { params: empty, result: HostInfo },
  /** The demo workflows, their servers and workspace copies registered (shipped, in the data folder). */
  'workspace.demo': { params: empty, result: z.object({ workflows: z.array(HostedWorkflow) }).strict() },
  'providers.status': { params: empty, result: ProviderStatus },
  /**
   * An OpenAI-compatible server's health and model list; with `probe`, one tiny chat call to that
   * model in that mode. The key is a keychain reference the host resolves; it goes to `base_url`
   * only, when the privacy policy allows that host (otherwise nothing is sent: `allowed: false`).
   */
  'providers.openai_status': {
    params: z
      .object({
        base_url: ModelUrl,
        api_key: CredentialRef.optional(),
        probe: z.object({ model: z.string().min(1).max(200), mode: z.enum(['structured', 'tools']).default('structured') }).strict().optional(),
      })
      .strict(),
    result: OpenAIStatus,
  },
  /**
   * An A2A judge's agent card (issue 29), read at url/.well-known/agent-card.json when the privacy
   * policy allows its host; otherwise nothing is sent and `problem` says why.
   */
  'judges.agent_card': { params: z.object({ url: z.string().min(1).max(2000) }).strict(), result: AgentCardCheck },
  'run.start': {
    params: z.object({ workflow: HostedWorkflow, overrides: RunOverrides.default({}) }).strict(),
    result: z.object({ run_id: z.string() }).strict(),
  },
  /** The user's workflow graphs, kept in the host's data folder (the CLI sees the same ones). */
  'workflows.list': { params: empty, result: z.object({ workflows: z.array(WorkflowSummary) }).strict() },
  'workflows.get': { params: z.object({ id: RegistryId }).strict(), result: z.object({ workflow: HostedWorkflowGraph, updated_at: z.string() }).strict() },
  /**
   * Creates or replaces the workflow with the document's id. `replaces`: the id it was stored under
   * before (a rename). `if_updated_at`: refuse when someone else saved it since (not_found/conflict).
   * A workflow only names registered servers and workspaces, so saving one needs no person.
   */
  'workflows.save': {
    params: z.object({ workflow: HostedWorkflowGraph, replaces: RegistryId.optional(), if_updated_at: z.string().optional() }).strict(),
    result: z.object({ id: RegistryId, updated_at: z.string() }).strict(),
  },
  'workflows.delete': { params: z.object({ id: RegistryId }).strict(), result: z.object({ deleted: z.boolean() }).strict() },
  /**
   * The host's check of a workflow document as it would be saved (the editor's draft, any shape):
   * the checks `steward validate` makes — schema in words, graph, registry, tool arguments against
   * the input schemas its servers list (the host lists a server it has not inspected), replay
   * scripts' decisions. `saveable`: the schema holds; no problems: the CLI would call it valid.
   */
  'workflows.validate': {
    params: z.object({ workflow: z.unknown() }).strict(),
    result: z.object({ problems: z.array(GraphProblemRecord), saveable: z.boolean() }).strict(),
  },
  /** The editor's unsaved work, kept in the data folder until saved or discarded (workflow-draft.ts). */
  ...DRAFT_METHODS,
  /** Runs the stored workflow with these inputs; refused (invalid_params) while the graph has problems. */
  'workflows.run': {
    /**
     * `trace`: the trace profile's settings for this run (`trace_profile`: the version they came
     * from); without them, the trace profile the workflow's own choices name on the host, if any.
     */
    params: z.object({ id: RegistryId, inputs: WorkflowInputs.default({}), trace: TraceSettings.optional(), trace_profile: ProfileVersionRef.optional() }).strict(),
    result: z.object({ run_id: z.string() }).strict(),
  },
  'run.cancel': { params: z.object({ run_id: z.string() }).strict(), result: z.object({ cancelled: z.boolean() }).strict() },
  'runs.active': { params: empty, result: z.object({ run_ids: z.array(z.string()) }).strict() },
  /**
   * Deletes runs from the host's journal (and so from every page: they are told, now or when they
   * next subscribe). A running or waiting run is refused (conflict, naming it); ids the host does
   * not hold are ignored. `deleted`: how many runs went.
   */
  'runs.delete': {
    params: z.object({ run_ids: z.array(RunIdParam).min(1).max(MAX_DELETE_RUNS) }).strict(),
    result: z.object({ deleted: z.number().int().nonnegative() }).strict(),
  },
  /**
   * Which of these runs the host's journal holds: a page whose cursor is at or before the journal's tombstone
   * compaction (events.subscribe `reconcile`) deletes the runs it holds that the journal no longer has.
   */
  /**
   * A page of the host's runs, newest first, from its history database (issue 26): every run's
   * summary row (the fold of all its events; `imported` when it came from an imported trace), filtered by
   * status and workflow, by where it came from (`imported`), by start (`from`
   * inclusive, `to` exclusive: ISO instants), and by `text` (every word by its start, or the run's id
   * whole or its start); `order` oldest first on request. `after`: the last row of the page before.
   * `total`: runs in the history; `head`: the history's head, so a page knows how far behind it is.
   */
  'runs.list': {
    params: z
      .object({
        text: z.string().max(500).optional(),
        status: z.array(RunStatus).max(20).optional(),
        workflow: z.string().min(1).max(200).optional(),
        from: z.iso.datetime().optional(),
        to: z.iso.datetime().optional(),
        order: z.enum(['newest', 'oldest']).optional(),
        /** Only the runs from imported traces (true), or only those that ran here (false). */
        imported: z.boolean().optional(),
        limit: z.number().int().min(1).max(1_000).optional(),
        after: z.object({ started_at: z.string().max(100), run_id: RunIdParam }).strict().optional(),
      })
      .strict(),
    result: z
      .object({
        runs: z.array(RunRow).max(1_000),
        next: z.object({ started_at: z.string(), run_id: z.string() }).strict().optional(),
        total: z.number().int().nonnegative(),
        head: JournalPosition,
      })
      .strict(),
  },
  /**
   * One run's events from the host's history, in sequence order after `after_seq` (issue 26): a page
   * keeps the events of recent and opened runs only, and asks for the rest when a person opens one.
   * `next`: the `after_seq` of the following page, when more follow.
   */
  'runs.events': {
    params: z.object({ run_id: RunIdParam, after_seq: z.number().int().min(-1).optional(), limit: z.number().int().min(1).max(MAX_RUN_EVENTS_PAGE).optional() }).strict(),
    result: z.object({ events: z.array(RunEvent).max(MAX_RUN_EVENTS_PAGE), next: z.number().int().optional(), known: z.boolean() }).strict(),
  },
  'runs.known': {
    params: z.object({ run_ids: z.array(RunIdParam).max(MAX_DELETE_RUNS) }).strict(),
    result: z.object({ known: z.array(z.string()) }).strict(),
  },
  /**
   * Appends a chunk of an imported trace (JSONL of RunEvents, a CLI --trace file included) to the
   * journal. `import_id` ties the chunks of one import together: a run the journal held before this
   * import keeps its events (its new events here are left out: `held`); an event the journal holds
   * unchanged is a harmless repeat (`repeated`); `skipped` is both. An event that contradicts the
   * journal (another event under its id or at its place) or the chunk refuses the chunk (conflict,
   * invalid_params), naming its run and seq. Events are stored trimmed and masked as recorded ones.
   */
  'runs.import': {
    params: z.object({ import_id: z.string().min(1).max(100), events: z.array(RunEvent).min(1).max(MAX_IMPORT_EVENTS) }).strict(),
    result: z
      .object({
        imported: z.number().int().nonnegative(),
        repeated: z.number().int().nonnegative(),
        held: z.number().int().nonnegative(),
        skipped: z.number().int().nonnegative(),
      })
      .strict(),
  },
  /**
   * An agent node's promotion figures (issue 26: kept by the host, folded from its history when asked;
   * the page keeps none): how many reviewed outcomes it has, the metrics over its last `window`, and a
   * chart of at most `points` points. `node` '': a workflow's own agent runs; a graph's agent node by id.
   */
  'promotion.figures': {
    params: z
      .object({
        workflow_id: z.string().min(1).max(200),
        node: z.string().max(200).default(''),
        window: z.number().int().min(1).max(1_000_000),
        points: z.number().int().min(1).max(MAX_PROMOTION_POINTS),
      })
      .strict(),
    result: z.object({ outcomes: z.number().int().nonnegative(), metrics: PromotionMetrics, series: z.array(MetricsPoint).max(MAX_PROMOTION_POINTS) }).strict(),
  },
  /** The agent nodes with counted outcomes, of one workflow or of all ('' for a workflow's own agent runs). */
  'promotion.nodes': {
    params: z.object({ workflow_id: z.string().min(1).max(200).optional() }).strict(),
    result: z.object({ nodes: z.array(z.object({ workflow_id: z.string(), node: z.string() }).strict()) }).strict(),
  },
  /**
   * A page of the host's learning examples (issue 26: the page keeps none), newest first (or oldest),
   * narrowed by workflow, kind, verdict ('none': without one) and agreement; never a dry run's. `after`:
   * the last example of the page before. `whole`: each with its whole prompt (`context`, rebuilt from
   * its run's examples up to it) or why it cannot be rebuilt (`prompt_problem`), as an export needs.
   * `total`: examples in the history.
   */
  'learning.examples': {
    params: z
      .object({
        workflow: z.string().min(1).max(200).optional(),
        kind: LearningKind.optional(),
        verdict: z.union([Verdict, z.literal('none')]).optional(),
        agreed: z.boolean().optional(),
        order: z.enum(['newest', 'oldest']).optional(),
        limit: z.number().int().min(1).max(MAX_EXAMPLES_PAGE),
        after: ExamplesCursor.optional(),
        whole: z.boolean().optional(),
      })
      .strict(),
    result: z.object({ examples: z.array(HostedExample).max(MAX_EXAMPLES_PAGE), next: ExamplesCursor.optional(), total: z.number().int().nonnegative() }).strict(),
  },
  /** One learning example by its event id, with its whole prompt (or why it cannot be rebuilt); not_found when the history holds none. */
  'learning.example': {
    params: z.object({ id: z.string().min(1).max(400) }).strict(),
    result: z.object({ example: HostedExample }).strict(),
  },
  /** A run from the host's journal as OpenTelemetry OTLP/JSON (docs/otlp.md); not_found for a run it does not hold. */
  'runs.otlp': {
    params: z.object({ run_id: z.string().min(1).max(200) }).strict(),
    result: z.object({ json: z.string(), spans: z.number().int().nonnegative() }).strict(),
  },
  /**
   * Sends that OTLP/JSON to an OTLP/HTTP endpoint (a bare address gets /v1/traces). The host checks
   * the address as it checks a model's: loopback always, another host only when the privacy policy
   * lists it — forbidden otherwise, saying which host and how to allow it. An allowed endpoint is
   * remembered (otlp.endpoint). `sent: false`: the collector could not be reached or refused it.
   */
  'runs.otlp_send': {
    params: z.object({ run_id: z.string().min(1).max(200), endpoint: z.string().min(1).max(2000) }).strict(),
    result: z.discriminatedUnion('sent', [
      z.object({ sent: z.literal(true), spans: z.number().int().nonnegative(), url: z.string(), rejected_spans: z.number().int().nonnegative() }).strict(),
      z.object({ sent: z.literal(false), message: z.string() }).strict(),
    ]),
  },
  /** The latest report of each eval suite (`steward eval supervisor|boundary`) kept in the data folder; absent: never run. Read-only. */
  'eval.latest': { params: empty, result: LatestEvalReports },
  /** The injection check (`steward eval injection`, issue 31) started from the app, in the background; one at a time. */
  'eval.injection.start': { params: empty, result: InjectionCheckStart },
  /** Its progress while it runs, and the latest report kept in the data folder (the CLI's too); absent: never run here. */
  'eval.injection.status': { params: empty, result: InjectionCheckStatus },
  /** The OTLP endpoint this app last sent to (its data folder remembers it); absent before the first. */
  'otlp.endpoint': { params: empty, result: z.object({ endpoint: z.string().optional() }).strict() },
  /**
   * Runs a recorded run again on its recorded model answers (src-shared/replay/): tools
   * `dry_run` (nothing executes) or `live` (through the boundary and authorization as any run; a
   * person confirms what needs it). `workflow`: the agent workflow it ran, when the page keeps it (the
   * host knows the demos). A workflow (graph) run replays on the workflow the host keeps, each agent
   * invocation on its own answers; dry, its tool nodes give back their recorded results. not_found
   * without its events; invalid_params, saying why, when it cannot be rebuilt as it ran. `gaps`:
   * where the answers are not exactly the recorded ones.
   */
  'runs.replay': {
    params: z.object({ run_id: z.string().min(1).max(200), tools: z.enum(['dry_run', 'live']).default('dry_run'), workflow: HostedWorkflow.optional() }).strict(),
    result: z.object({ run_id: z.string(), gaps: z.array(z.string()) }).strict(),
  },
  /**
   * Start receiving events: the journal's events after the page's cursor (all of them without one,
   * or when `journal` names another journal) are pushed first, in frames, then live ones. `after`
   * in the result is where the feed starts; `head` the position of the journal's last event.
   */
  'events.subscribe': {
    /**
     * `window`: at most this many frames in flight; the page says what it stored with events.cursor (without: no limit).
     * `reconciled`: the compaction mark the page reconciled its runs against (a `reconcile` it was given).
     */
    params: z.object({ journal: JournalId.optional(), after: JournalPosition.optional(), window: FeedWindow.optional(), reconciled: JournalPosition.optional() }).strict(),
    /**
     * `deleted`: runs removed since `after` that the page may hold; they are pushed first (`runs.deleted` frames).
     * `reconcile`: the cursor is at or before the journal's tombstone compaction mark, so nothing is sent yet: the page
     * deletes the runs it holds that runs.known does not confirm, then subscribes again with `reconciled` set to it.
     */
    result: z
      .object({ journal: JournalId, after: JournalPosition, head: JournalPosition, deleted: z.number().int().nonnegative().optional(), reconcile: JournalPosition.optional() })
      .strict(),
  },
  /**
   * Names of the credentials in the OS keychain (never values). `unavailable`: the keychain cannot be
   * reached (no Secret Service, a locked keyring), in words; nothing can be stored until it can.
   */
  'credentials.list': { params: empty, result: z.object({ credentials: z.array(CredentialInfo), unavailable: z.string().min(1).optional() }).strict() },
  /** Write-only: the value goes to the host's keychain and never comes back. Confirmed by a person, audited. */
  'credentials.set': {
    params: z.object({ name: CredentialName, value: z.string().min(4).max(16_384) }).strict(),
    result: ActionResult,
  },
  'credentials.delete': { params: z.object({ name: CredentialName }).strict(), result: z.object({ deleted: z.boolean() }).strict() },
  /**
   * Starts a registered server to list its tools with Steward's own effect metadata (shipped or
   * missing; the user's overrides are in effects.list) and the server's annotations as hints.
   */
  'mcp.inspect': {
    params: z.object({ server: RegistryId, workspace: RegistryId.optional() }).strict(),
    result: z
      .object({
        server_name: z.string().optional(),
        /** The MCP protocol revision the server and Steward agreed on (e.g. "2025-11-25"). */
        protocol_version: z.string().max(40).optional(),
        /** Features deprecated in MCP 2026-07-28 this (older) server uses: still supported, marked in the registry. */
        deprecated_features: z.array(DeprecatedFeature).max(8).optional(),
        tools: z.array(InspectedTool),
        resources: z.array(InspectedResource).optional(),
        prompts: z.array(InspectedPrompt).optional(),
      })
      .strict(),
  },
  /**
   * OAuth sign-in to a registered remote (url) server: the host opens the authorization page in the
   * system browser and waits (up to 5 minutes) for its loopback redirect; the tokens go to the OS
   * keychain and never to the page.
   */
  'mcp.sign_in': {
    params: z.object({ server: RegistryId }).strict(),
    result: z.object({ server_name: z.string().optional(), tools: z.number().int().nonnegative() }).strict(),
  },
  /** Forgets a server's sign-in (its keychain entry). */
  'mcp.sign_out': { params: z.object({ server: RegistryId }).strict(), result: z.object({ signed_out: z.boolean() }).strict() },
  /** Whether a server can sign in (a url server without its own Authorization header) and whether it has. */
  /** `client`: how the sign-in's OAuth client was obtained (absent: nobody signed in, or it cannot be told); `dynamic_registration` is deprecated in MCP 2026-07-28. */
  'mcp.auth_status': { params: z.object({ server: RegistryId }).strict(), result: z.object({ can_sign_in: z.boolean(), signed_in: z.boolean(), client: SignInClient.optional() }).strict() },
  'servers.list': { params: empty, result: z.object({ servers: z.array(RegisteredServer) }).strict() },
  /** A command server (or a shipped package with other arguments) runs as the user: a person confirms. */
  /** `replace`: an edit of a server of yours; without it an id already registered is a conflict (nothing is overwritten). */
  'servers.register': { params: z.object({ server: ServerRegistration, replace: z.boolean().default(false) }).strict(), result: ActionResult },
  'servers.remove': { params: z.object({ id: RegistryId }).strict(), result: ActionResult },
  /** A server's trust level (issue 31): marking it trusted needs a person's confirmation; every change is audited. */
  'servers.trust': { params: z.object({ id: RegistryId, trust: ServerTrust }).strict(), result: ActionResult },
  'workspaces.list': { params: empty, result: z.object({ workspaces: z.array(Workspace) }).strict() },
  /** A folder outside the data folder: a person confirms. */
  'workspaces.register': { params: z.object({ workspace: WorkspaceRegistration, replace: z.boolean().default(false) }).strict(), result: ActionResult },
  'workspaces.remove': { params: z.object({ id: RegistryId }).strict(), result: ActionResult },
  'privacy.get': { params: empty, result: z.object({ policy: PrivacyPolicy }).strict() },
  /** Allowing a new host: a person confirms; narrowing is audited only. */
  'privacy.set': { params: z.object({ policy: PrivacyPolicy }).strict(), result: ActionResult },
  'effects.list': { params: empty, result: z.object({ overrides: z.array(EffectOverride) }).strict() },
  /** `effect: null` removes the override. Less protected than the tool's current effect: a person confirms. */
  'effects.set': { params: z.object({ server: RegistryId, tool: ToolName, effect: ToolEffect.nullable() }).strict(), result: ActionResult },
  /** The code the host printed on its terminal, for an action that answered `needs_confirmation`. */
  'actions.confirm': { params: z.object({ confirmation_id: z.string().min(1).max(100), code: ConfirmationCode }).strict(), result: ConfirmResult },
  /** The person declined in the page: the action is denied (and audited). */
  'actions.cancel': { params: z.object({ confirmation_id: z.string().min(1).max(100) }).strict(), result: z.object({ cancelled: z.boolean() }).strict() },
  /** The audit log of explicit actions, newest first. */
  'audit.list': { params: z.object({ limit: z.number().int().min(1).max(5000).default(500) }).strict(), result: z.object({ records: z.array(AuditRecord) }).strict() },
  /** Runs waiting for a person, with what they wait for (also after a restart). */
  'interventions.pending': { params: empty, result: z.object({ interventions: z.array(Intervention) }).strict() },
  /** A person's answer: the waiting run resumes. */
  'interventions.answer': {
    params: z.object({ run_id: z.string(), intervention_id: z.string(), answer: HumanAnswer }).strict(),
    result: z.object({ resumed: z.boolean() }).strict(),
  },
  /** What MCP servers ask the person right now (also pushed to every page as the `asks` frame). */
  'asks.pending': { params: empty, result: z.object({ asks: z.array(PendingAsk) }).strict() },
  /** The person's answer to a server's ask: the first answer wins; entries that do not fit the form are invalid_params, by field. */
  'asks.answer': { params: AskAnswer, result: z.object({ answered: z.boolean() }).strict() },
  /** Kept for pages from before issue 9: the journal keeps every event, so an ack drops nothing (always 0). */
  'events.ack': { params: z.object({ ids: z.array(z.string()).max(10_000) }).strict(), result: z.object({ acked: z.number().int() }).strict() },
  /** The page stored everything up to `position` of `journal`: frames up to there are no longer in flight (events.subscribe `window`). */
  'events.cursor': { params: z.object({ journal: JournalId, position: JournalPosition }).strict(), result: z.object({ acknowledged: z.boolean() }).strict() },
  /** The profile versions people made or imported, and the workflows' choices, as the host keeps them (profiles.json in the data folder). */
  'profiles.list': {
    params: empty,
    /** `deleted`: profiles a person deleted; a page drops what it holds of them. */
    result: z.object({ profiles: z.array(SyncedProfile), workflow_choices: z.array(WorkflowChoices), deleted: z.array(DeletedProfile).optional() }).strict(),
  },
  /**
   * Adds the versions the host lacks (an identical one is kept as it is; one it holds with other
   * settings is a conflict, reported, the rest still saved) and the workflows' choices newer than
   * the host's. Credentials travel as keychain references only: a value in their place is invalid_params.
   */
  'profiles.save': {
    params: z
      .object({ profiles: z.array(SyncedProfile).max(MAX_SYNCED_RECORDS).default([]), workflow_choices: z.array(WorkflowChoices).max(MAX_SYNCED_RECORDS).default([]) })
      .strict(),
    result: z.object({ added: z.number().int().nonnegative(), choices_taken: z.number().int().nonnegative(), conflicts: z.array(ProfileConflict) }).strict(),
  },
  /**
   * Deletes every version of a profile a person made or imported (issue 28), keeping its id so no
   * page brings it back. Refused, saying who, while a workflow's choices or a run's record name it;
   * a built-in is never deleted.
   */
  'profiles.delete': { params: z.object({ id: z.string().min(1).max(80) }).strict(), result: ProfileDeleteResult },
  /**
   * The app's price list (issue 31): dollars per million input and output tokens per model label,
   * kept in the data folder (prices.json). Local models cost 0 unless listed. `problem`: the file
   * could not be read (the list then reads empty).
   */
  'prices.get': { params: empty, result: z.object({ prices: PriceList, updated_at: z.string().optional(), problem: z.string().optional() }).strict() },
  /** Replaces the price list whole. */
  'prices.save': {
    params: z.object({ prices: PriceList.refine((p) => Object.keys(p).length <= MAX_PRICED_MODELS, `at most ${MAX_PRICED_MODELS} models`) }).strict(),
    result: z.object({ updated_at: z.string() }).strict(),
  },
  /**
   * What supervision cost per workflow over the runs the host's history holds that started at or
   * after `since`, priced with the price list. `truncated`: more runs than the host adds up at once
   * started in the period; the totals cover the newest `runs`.
   */
  'costs.by_workflow': {
    params: z.object({ since: z.iso.datetime() }).strict(),
    result: z.object({ workflows: z.array(WorkflowCost), runs: z.number().int().nonnegative(), truncated: z.boolean() }).strict(),
  },
  /**
   * A supervision profile's review rules put to the history's recorded rounds, no model called
   * (issue 31; `steward eval verdicts --profile`): which reviewed rounds would no longer be reviewed.
   */
  'verdicts.replay_profile': { params: ProfileReplayParams, result: ProfileReplayResult },
  /**
   * A teacher profile's model put to the history's recorded teacher verdicts (issue 31; `steward eval
   * verdicts --teacher`), in the background, one at a time: answers at once; `.status` follows it and
   * then answers the flips; `.cancel` stops it after the case under way.
   */
  'verdicts.replay_teacher.start': { params: TeacherReplayParams, result: TeacherReplayStart },
  'verdicts.replay_teacher.status': { params: empty, result: TeacherReplayStatus },
  'verdicts.replay_teacher.cancel': { params: empty, result: z.object({ cancelled: z.boolean() }).strict() },
  /**
   * A student trial (issue 31): the node's last N reviewed rounds put to a candidate student, no tool
   * executed; a run of its own. Answers at once with the trial's run id; `trial.status` follows it.
   */
  'trial.start': { params: TrialStartParams, result: TrialStartResult },
  /** A trial's progress (rounds done of all), then its report; read from the history once it ended. not_found: no such trial. */
  'trial.status': { params: z.object({ run_id: z.string().min(1).max(200) }).strict(), result: TrialStatusResult },
  /** Cancels a running trial: it ends `cancelled`, its rounds done so far reported as partial. false: no trial of that id runs here. */
  'trial.cancel': { params: z.object({ run_id: z.string().min(1).max(200) }).strict(), result: z.object({ cancelled: z.boolean() }).strict() },
} as const;

export type HostMethod = keyof typeof HOST_METHODS;
export type HostParams<M extends HostMethod> = z.input<(typeof HOST_METHODS)[M]['params']>;
export type HostParamsParsed<M extends HostMethod> = z.infer<(typeof HOST_METHODS)[M]['params']>;
export type HostResult<M extends HostMethod> = z.infer<(typeof HOST_METHODS)[M]['result']>;
export const HOST_METHOD_NAMES = Object.keys(HOST_METHODS) as HostMethod[];

export const ERROR_CODES = ['bad_request', 'unknown_method', 'invalid_params', 'not_found', 'host_error', 'forbidden', 'conflict'] as const;
export const HostErrorCode = z.enum(ERROR_CODES);
export type HostErrorCode = z.infer<typeof HostErrorCode>;

/** Renderer → host. */
export const ClientFrame = z
  .object({
    kind: z.literal('request'),
    id: z.number().int().nonnegative(),
    method: z.string(),
    params: z.unknown().optional(),
  })
  .strict();
export type ClientFrame = z.infer<typeof ClientFrame>;

const ResponseOk = z.object({ kind: z.literal('response'), id: z.number().int().nonnegative(), ok: z.literal(true), result: z.unknown() }).strict();
const ResponseError = z
  .object({
    kind: z.literal('response'),
    id: z.number().int().nonnegative(),
    ok: z.literal(false),
    error: z.object({ code: HostErrorCode, message: z.string() }).strict(),
  })
  .strict();
/**
 * Where a frame's events sit in the host's journal: they follow `after` with nothing between, the
 * last one is at `position`. A page stores `position` as its cursor once the events are stored.
 */
export const EventsCursor = z.object({ journal: JournalId, after: JournalPosition, position: JournalPosition }).strict();
export type EventsCursor = z.infer<typeof EventsCursor>;
/**
 * `imported`: the runs among `events` that came from an imported trace (they never ran on this host); absent
 * when none did. Ids as events carry them (no length bound of a request's): at most one per event of a frame.
 */
const EventsPush = z.object({ kind: z.literal('events'), events: z.array(RunEvent), cursor: EventsCursor.optional(), imported: z.array(z.string().min(1)).max(MAX_IMPORT_EVENTS).optional() }).strict();
/** Runs removed from the journal (a person, retention): a page deletes what it holds of them. At most 1,000 per frame. */
const RunsDeletedPush = z.object({ kind: z.literal('runs.deleted'), journal: JournalId, run_ids: z.array(RunIdParam).max(1_000) }).strict();
/** Every ask of an MCP server still waiting for the person (the whole list, on each change and on subscribe). */
const AsksPush = z.object({ kind: z.literal('asks'), asks: z.array(PendingAsk) }).strict();

/** Host → renderer: a response to a request, or pushed events. */
export const ServerFrame = z.discriminatedUnion('kind', [z.discriminatedUnion('ok', [ResponseOk, ResponseError]), EventsPush, RunsDeletedPush, AsksPush]);
export type ServerFrame = z.infer<typeof ServerFrame>;
export type ResponseFrame = Extract<ServerFrame, { kind: 'response' }>;
export type EventsFrame = Extract<ServerFrame, { kind: 'events' }>;
export type RunsDeletedFrame = Extract<ServerFrame, { kind: 'runs.deleted' }>;
export type AsksFrame = Extract<ServerFrame, { kind: 'asks' }>;
/** What the host pushes to a page unasked. */
export type PushFrame = EventsFrame | RunsDeletedFrame | AsksFrame;

export function isHostMethod(name: string): name is HostMethod {
  return Object.hasOwn(HOST_METHODS, name);
}
