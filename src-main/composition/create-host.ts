import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  ClientFrame,
  HOST_METHODS,
  isHostMethod,
  MAX_RUN_EVENTS_PAGE,
  type HostErrorCode,
  type HostMethod,
  type HostParamsParsed,
  type HostResult,
  type ResponseFrame,
} from '@shared/contracts/host-api';
import { demoHostedWorkflows } from '../demo/demo-workspace';
import { RunManager } from '../engine/run-manager';
import { waitingStoresOn } from '../engine/waiting-stores';
import { WorkflowStore, WorkflowStoreError } from '../workflow/workflow-store';
import { loadStoredWorkflow } from '../workflow/stored-workflow';
import { ToolListCache, validateDraft } from '../workflow/validate-draft';
import { workflowLibrary } from '../workflow/workflow-library';
import { WorkflowDraftStore } from '../workflow/workflow-draft-store';
import { inspectServer } from '../mcp/inspect-server';
import { canSignIn, signedInRegistered, signInClientRegistered, signInRegistered, signOutRegistered } from '../mcp/oauth/registry-sign-in';
import { openBrowser } from '../shells/open-browser';
import { appConsent } from '../mcp/oauth/app-consent';
import { createKeychainStore } from '../credentials/keychain-store';
import { CredentialStoreError, credentialErrorText } from '../credentials/credential-store';
import { createCredentialListing } from '../credentials/credential-listing';
import { openHistory } from '../events/open-history';
import { withPrompt } from '../events/learning-store';
import { journalTombstoneBound } from '../events/tombstone-bound';
import { JournalFeed } from '../events/journal-feed';
import { RunHistory, retainAfterRunsFinish } from '../events/run-history';
import { openHostWrites } from '../mcp/journal-ledger';
import { getOllamaStatus } from '../providers/ollama-status';
import { getOpenAIStatus, readApiKey } from '../providers/openai-status';
import { SpecError } from '../spec/spec-errors';
import { formatZodIssues } from '../spec/load-spec';
import { AuditLog } from '../registry/audit-log';
import { ExplicitActions } from '../registry/explicit-actions';
import { HostRegistry } from '../registry/host-registry';
import type { RegisteredServer } from '@shared/contracts/host-registry';
import { expandWorkflow } from '../registry/expand-workflow';
import { RequestError } from '../registry/request-error';
import { exportEvents } from '../otlp/export-otlp';
import { otlpSendHandlers } from '../otlp/host-otlp-send';
import { costHandlers } from '../accounting/cost-handlers';
import { profileReplayHandlers } from '../eval/verdicts/profile-replay-handler';
import { teacherReplayHandlers } from '../eval/verdicts/teacher-replay-handler';
import { trialHandlers } from '../learning/trial/trial-handlers';
import { injectionHandlers } from '../eval/injection/injection-handlers';
import { PriceListStore } from '../accounting/price-list-store';
import { readLatestReports } from '../eval/latest-report';
import { OtlpEndpointStore } from '../otlp/otlp-endpoint-store';
import { ProfileStore } from '../profiles/profile-store';
import { runsUsingProfile } from '../profiles/profile-usage';
import { replayHostRun } from '../replay/host-replay';
import { workflowTrace } from '../workflow/workflow-trace';
import { withNodeDeployments } from '../workflow/node-deployments';
import { RegistryFileError } from '../registry/json-store';
import * as plans from '../registry/action-plans';
import { APP_VERSION } from '../version';
import { acquireDataFolderLock } from '../util/data-folder-lock';
import type { Host, HostOptions, HostSession } from './host-types';
import { JsonTooDeepError, MAX_JSON_DEPTH, jsonDepthExceeds } from '@shared/util/json-depth';
import { checkAgentCard } from '../workflow/pattern/a2a-judge';
import { startJudgmentExpiry } from '../workflow/pattern/judgment-expiry';
import { PersonAsks } from '../mcp/person-asks';
import type { RunEvent } from '@shared/contracts/events';
import { foldOrphanSpools, foldSpool } from '../events/cli-run-spool';
import { foldInBackground } from '../events/background-fold';
import { closeInterruptedRuns } from '../events/interrupted-runs';
import { watchCommandRuns } from '../events/command-runs-watch';
import { openCliChannel, type CliChannel } from '../shells/cli-channel/channel-server';
import { runCli } from '../shells/cli/cli';
import type { HostedFolder } from '../shells/cli/hosted-folder';

const PUSH_BATCH = 500;
/** About this much of a run's events in one runs.events answer (one frame, well under the transport's limit). */
const RUN_EVENTS_PAGE_BYTES = 4 * 1024 * 1024;
/** The history's background fold waits this long after a request (a page listing, searching, opening a run). */
const QUIET_AFTER_REQUEST_MS = 1_000;

/** The store's refusals as the request's error; a damaged file stays a host error (logged by name). */
function storeCall<T>(action: () => T): T {
  try {
    return action();
  } catch (err) {
    if (err instanceof WorkflowStoreError && err.code !== 'damaged') throw new RequestError(err.code, err.message);
    throw err;
  }
}

type Handlers = { [M in HostMethod]: (params: HostParamsParsed<M>, session: HostSession) => Promise<HostResult<M>> };

/**
 * The one composition root: builds the host's services once. The browser-run server, the Electron
 * main process and the tests all get the same Host; shells only adapt transport.
 */
export async function createHost(options: HostOptions): Promise<Host> {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  // One host per data folder: a second one would resume the same waiting runs and close this one's
  // live runs as interrupted. Held until close; refused with the holder's name (util/data-folder-lock).
  const folderLock = acquireDataFolderLock(options.dataDir, { shell: options.shell }, options.log);
  try {
    const host = await openHost(options);
    return { ...host, close: () => host.close().finally(() => folderLock.release()) };
  } catch (error) {
    folderLock.release();
    throw error;
  }
}

async function openHost(options: HostOptions): Promise<Host> {
  const log = options.log ?? (() => undefined);
  const ollamaHost = options.ollamaHost ?? process.env.OLLAMA_HOST ?? 'http://127.0.0.1:11434';
  // The journal keeps every event (issue 9); each page session reads it with its own cursor.
  const outbox = openHistory(options.dataDir, { log, ...journalTombstoneBound(process.env) });
  const feed = new JournalFeed(outbox, { batch: PUSH_BATCH, log });

  // Runs write through one writer: their events reach the journal in batches, each durable before anyone sees it.
  // The ledger shares the journal's connection and commits through the writer: a round's claim, its
  // committed decision and its events are one transaction, one sync (issue 26). So do the checkpoints
  // of waiting runs: a run's checkpoint commits with its events before it.
  const { writer, ledger } = openHostWrites(outbox, options.dataDir, { log });
  const { checkpoints, workflowCheckpoints } = waitingStoresOn(outbox.connection, { now: writer.commit }, options.dataDir, log);
  const flush = writer.flush;
  // A command attached to a run (steward run, answer) sees its events as the host records them: once durable, like a page.
  const watchers = new Map<string, Set<(event: RunEvent) => void>>();
  outbox.subscribe(({ events }) => {
    for (const event of events) watchers.get(event.run_id)?.forEach((listener) => listener(event));
  });
  const onEvent = (event: RunEvent) => writer.onEvent(event);
  const credentials = options.credentials ?? createKeychainStore();
  const listCredentials = createCredentialListing(credentials, log);
  const journalNextSeq = (runId: string) => outbox.openRuns().find((r) => r.run_id === runId)?.next_seq;
  // What MCP servers ask the person during a run: held here, pushed to every page that subscribed.
  const askPages = new Map<string, HostSession>();
  const asks = new PersonAsks({ onChange: (list) => askPages.forEach((page) => page.push({ kind: 'asks', asks: list })), ...(options.askTimeoutMs ? { timeoutMs: options.askTimeoutMs } : {}) });
  // The app's one price list (issue 31): Settings edit it; runs, reports and the supervisor's cost cap price with it.
  const priceList = new PriceListStore(options.dataDir);
  const runs = new RunManager({ ledger, onEvent, baseDir: options.dataDir, checkpoints, workflowCheckpoints, journalNextSeq, ollamaHost, credentials, ...(options.sealKeys ? { sealKeys: options.sealKeys } : {}), log, elicit: (runId, signal) => asks.asker(runId, signal), reviewSample: (runId, signal) => asks.reviewer(runId, signal), oauthConsent: (runId, signal) => appConsent(asks, runId, signal, options.openUrl ?? openBrowser), prices: () => priceList.read().prices, library: workflowLibrary(options.dataDir) });
  // Runs a steward command made alone and was killed in: into the history, closed as interrupted.
  foldOrphanSpools(outbox, options.dataDir, runs.waitingRunIds(), log);
  // Runs cut off when this host (or a steward command that wrote with no app) stopped: closed as interrupted.
  // Runs waiting for a person resume when answered; a run a live command still writes is left to it and followed live.
  const interruptedRuns = { dataDir: options.dataDir, waiting: () => runs.waitingRunIds(), log };
  const commandRuns = watchCommandRuns(outbox, { ...interruptedRuns, live: closeInterruptedRuns(outbox, interruptedRuns).live });
  // Deleting, importing and retention (issue 9): pages learn of deleted runs through the feed.
  const history = new RunHistory(outbox, { activeIds: () => [...runs.activeIds(), ...commandRuns.liveRunIds()], waitingRunIds: () => runs.waitingRunIds() }, log);
  // Imported runs left unfinished get their own honest end, not "interrupted by a host stop".
  history.closeUnfinishedImports();
  try {
    await history.applyRetention();
  } catch (error) {
    log(`retention at start-up failed (nothing was deleted): ${error instanceof Error ? error.message : String(error)}`);
  }
  const stopRetention = retainAfterRunsFinish(outbox, history, log);
  // Promotion figures and learning examples kept current while no run is under way and nobody is asking (a page's
  // list, a search), so a card or the Learning screen finds them ready. A page acknowledging frames is not asking.
  let askedAt = -Infinity;
  const asking = () => performance.now() - askedAt < QUIET_AFTER_REQUEST_MS;
  const backgroundFold = foldInBackground(outbox.fold, { busy: () => asking() || runs.activeIds().length > 0 || commandRuns.liveRunIds().length > 0, log });
  // New events to fold; a deletion leaves its nodes' later ranks to count again.
  const nudges = [outbox.subscribe(() => backgroundFold.nudge()), outbox.onRemoved(() => backgroundFold.nudge())];
  backgroundFold.nudge();
  // A pattern judgment a person left past its expiry goes to its fallback (the expiry is on disk: it holds across restarts).
  const stopExpiry = startJudgmentExpiry({ pending: () => runs.pending(), answer: (runId, id, answer) => runs.answer(runId, id, answer), log });
  // The host is the judge of what runs (issue 7): servers, workspaces, privacy and tool effects are
  // held here, changed only by explicit, audited actions; the risky ones need a person.
  const registry = new HostRegistry(options.dataDir);
  const workflowStore = new WorkflowStore(options.dataDir, log);
  // The tools registered servers listed (an inspection, or a draft's check): the editor's problems are steward validate's.
  const toolLists = new ToolListCache((server, workspace) => inspectServer(server, { workspace, cwd: options.dataDir, credentials, privacy: registry.privacy() }));
  // What the person typed in the editor and has not saved: offered back after a reload or a restart.
  const drafts = new WorkflowDraftStore(options.dataDir, log);
  // The settings people made in the app (profiles, workflows' choices) follow to any page (issue 9).
  const profileStore = new ProfileStore(options.dataDir);
  const audit = new AuditLog(join(options.dataDir, 'audit.jsonl'), log);
  const actions = new ExplicitActions(audit, options.confirm ?? { kind: 'terminal_code', print: (text) => log(text) });
  // Sending a run to an OTLP collector: the host checks the address against its own privacy policy.
  // Student trials (issue 31): the Learning screen's "Try another student…", each a run of its own.
  const injection = injectionHandlers({ dataDir: options.dataDir, log });
  // A teacher profile's model put to the recorded teacher verdicts (issue 31), in the background.
  const teacherReplay = teacherReplayHandlers({ journal: outbox, privacy: () => registry.privacy(), ollamaHost, credentials, log });
  const trials = trialHandlers({ journal: outbox, onEvent, privacy: () => registry.privacy(), ollamaHost, credentials, profiles: profileStore, log });
  const otlpSend = otlpSendHandlers({ journal: outbox, privacy: () => registry.privacy(), endpoints: new OtlpEndpointStore(options.dataDir), log, prices: () => priceList.read().prices });


  const handlers: Handlers = {
    'host.info': async () => ({ app: 'steward', version: APP_VERSION, shell: options.shell, demo: true, journal: outbox.id }),
    'workspace.demo': async () => ({
      workflows: demoHostedWorkflows(options.dataDir, registry, (id, path) =>
        audit.append({ action: 'workspaces.register', subject: id, detail: `${path} (demo copy, inside Steward's data folder)`, decided_by: 'automatic', outcome: 'approved' }),
      ),
    }),
    'providers.status': async () => ({
      script: { available: true, label: 'replay' },
      ollama: await getOllamaStatus(ollamaHost),
    }),
    // The key is read here, on the host, and handed to the check alone: the page only ever names it.
    'providers.openai_status': async ({ base_url, api_key, probe }) => getOpenAIStatus({ base_url, api_key, probe }, { ...(await readApiKey(credentials, api_key)), privacy: registry.privacy() }),
    'judges.agent_card': async ({ url }) => checkAgentCard(url, { privacy: registry.privacy() }),
    'run.start': async ({ workflow, overrides }) => runs.start(expandWorkflow(workflow, registry), overrides, registry.privacy()),
    'workflows.list': async () => ({ workflows: workflowStore.list() }),
    'workflows.get': async ({ id }) => {
      const stored = storeCall(() => workflowStore.get(id));
      if (!stored) throw new RequestError('not_found', `no stored workflow "${id}"`);
      return stored;
    },
    'workflows.save': async ({ workflow, replaces, if_updated_at }) =>
      storeCall(() => workflowStore.save(workflow, { ...(replaces !== undefined ? { replaces } : {}), ...(if_updated_at !== undefined ? { ifUpdatedAt: if_updated_at } : {}) })),
    'workflows.delete': async ({ id }) => {
      const deleted = storeCall(() => workflowStore.delete(id));
      // Its unsaved draft goes with it: a later workflow under this id is not offered another's edits.
      drafts.discard(id);
      return { deleted };
    },
    'workflows.validate': async ({ workflow }) => validateDraft(workflow, registry, toolLists, workflowLibrary(options.dataDir, workflowStore, registry).interfaces()),
    'drafts.get': async ({ workflow_id }) => {
      const draft = drafts.get(workflow_id);
      return draft ? { draft } : {};
    },
    'drafts.put': async ({ workflow_id, document, base_updated_at, unparsed }) => ({ saved_at: drafts.put(workflow_id, document, base_updated_at, unparsed).saved_at }),
    'drafts.discard': async ({ workflow_id }) => ({ discarded: drafts.discard(workflow_id) }),
    'workflows.run': async ({ id, inputs, ...trace }) => {
      const kept = profileStore.list();
      // Each agent node in the phase of its own deployment profile (issue 29), recorded on its agent.started.
      const { loaded, profiles } = withNodeDeployments(storeCall(() => loadStoredWorkflow(workflowStore, id, registry, options.dataDir)), kept);
      return runs.startWorkflow(loaded, inputs, registry.privacy(), { ...workflowTrace(trace, id, kept), nodeProfiles: profiles });
    },
    // A student trial is a run too: the run view's Cancel run stops it (issue 31).
    'run.cancel': async ({ run_id }) => ({ cancelled: runs.cancel(run_id) || trials.cancel(run_id) }),
    'runs.active': async () => ({ run_ids: runs.activeIds() }),
    'runs.delete': async ({ run_ids }) => ({ deleted: await history.delete(run_ids) }),
    'runs.import': async ({ import_id, events }) => history.import(import_id, events),
    'runs.otlp': async ({ run_id }) => {
      const events = outbox.runEvents(run_id);
      if (events.length === 0) throw new RequestError('not_found', `the host holds no events of run "${run_id}"`);
      const exported = exportEvents(events, priceList.read().prices);
      return { json: new TextDecoder().decode(exported.body), spans: exported.spans };
    },
    'runs.replay': async (params, session) =>
      replayHostRun(params, {
        events: (runId) => outbox.runEvents(runId),
        demos: async () => (await handlers['workspace.demo']({}, session)).workflows,
        expand: (workflow) => expandWorkflow(workflow, registry),
        dataDir: options.dataDir,
        privacy: () => registry.privacy(),
        start: (spec, overrides, privacy, extra) => runs.start(spec, overrides, privacy, extra),
        workflow: (id) => (workflowStore.get(id) ? storeCall(() => loadStoredWorkflow(workflowStore, id, registry, options.dataDir)) : undefined),
        startWorkflow: (loaded, inputs, privacy, extra) => runs.startWorkflow(loaded, inputs, privacy, extra),
        trial: (events) => trials.replay(events),
      }),
    ...otlpSend,
    // The price list and what supervision cost (issue 31).
    ...costHandlers({ journal: outbox, prices: priceList }),
    'eval.latest': async () => readLatestReports(options.dataDir),
    // The injection check run from the Learning screen (issue 31), as steward eval injection runs it.
    ...injection.handlers,
    // A supervision profile's rules over the recorded rounds, no model called (issue 31).
    ...profileReplayHandlers(outbox),
    ...teacherReplay.handlers,
    ...trials.handlers,
    'events.subscribe': async ({ journal, after, window, reconciled }, session) => {
      // A page that connects (or reloads) while a server waits for the person is shown the ask at once.
      askPages.set(session.id, session);
      session.push({ kind: 'asks', asks: asks.list() });
      return feed.attach(session.id, (frame) => session.push({ kind: 'events', ...frame }), { journal, after, window, reconciled }, (run_ids) => session.push({ kind: 'runs.deleted', journal: outbox.id, run_ids }));
    },
    'runs.known': async ({ run_ids }) => ({ known: run_ids.filter((id) => outbox.hasRun(id)) }),
    'runs.events': async ({ run_id, after_seq, limit }) => ({ ...outbox.runEventsPage(run_id, after_seq ?? -1, limit ?? MAX_RUN_EVENTS_PAGE, RUN_EVENTS_PAGE_BYTES), known: outbox.hasRun(run_id) }),
    'runs.list': async ({ text, status, workflow, from, to, order, imported, limit, after }) => {
      const query = { status, workflow, from, to, oldest: order === 'oldest', imported, limit, after };
      const page = text !== undefined && text.trim().length > 0 ? outbox.search(text, query) : outbox.runsPage(query);
      // A run from an imported trace says so (it never ran here), as steward runs list says it.
      return { runs: page.runs.map((listed) => (listed.imported ? { ...listed.run, imported: true as const } : listed.run)), ...(page.next ? { next: page.next } : {}), total: outbox.runCount, head: outbox.head };
    },
    // Promotion figures from the host's own history, folded when asked (events/promotion-store.ts).
    'promotion.figures': async ({ workflow_id, node, window, points }) => outbox.promotion.figures(workflow_id, node, window, points),
    'promotion.nodes': async ({ workflow_id }) => ({ nodes: await outbox.promotion.subjects(workflow_id) }),
    // The Learning list from the host's history, folded the same way (events/learning-store.ts).
    'learning.examples': async ({ workflow, kind, verdict, agreed, order, limit, after, whole }) => outbox.learning.page({ workflow, kind, verdict, agreed, oldest: order === 'oldest', limit, after, whole }),
    'learning.example': async ({ id }) => {
      const found = await outbox.learning.example(id);
      if (!found) throw new RequestError('not_found', `no learning example "${id}" in this history`);
      const { prompt, ...example } = found;
      return { example: withPrompt(example, prompt) };
    },
    // Nothing is dropped on an ack any more: another page may still need the event.
    'events.ack': async () => ({ acked: 0 }),
    'events.cursor': async ({ journal, position }, session) => ({ acknowledged: feed.acknowledge(session.id, { journal, position }) }),
    'profiles.list': async () => profileStore.list(),
    'profiles.save': async ({ profiles, workflow_choices }) => profileStore.save(profiles, workflow_choices),
    // Refused while a workflow's choices or a run's record (the history) name it: the answer says which.
    'profiles.delete': async ({ id }) => profileStore.delete(id, (profile) => runsUsingProfile(outbox.connection, profile), (workflow) => workflowStore.list().find((w) => w.id === workflow)?.name),
    'credentials.list': listCredentials,
    'credentials.set': async ({ name, value }) => {
      // A keychain that cannot take the value says so before anyone is asked to approve the write.
      await credentials.list();
      return actions.run(plans.setCredentialPlan(credentials, name, value));
    },
    'credentials.delete': async ({ name }) => {
      const deleted = { value: false };
      await actions.run(plans.deleteCredentialPlan(credentials, name, deleted));
      return { deleted: deleted.value };
    },
    'mcp.inspect': async ({ server, workspace }) => {
      const entry = registry.server(server);
      if (!entry) throw new RequestError('not_found', `no registered server "${server}"`);
      const folder = workspace === undefined ? undefined : registry.workspace(workspace);
      if (workspace !== undefined && !folder) throw new RequestError('not_found', `no registered workspace "${workspace}"`);
      const inspected = await inspectServer(entry, { workspace: folder?.path, cwd: options.dataDir, credentials, privacy: registry.privacy() });
      toolLists.remember(entry, folder?.path, inspected.tools);
      return inspected;
    },
    'mcp.sign_in': async ({ server }) => {
      const outcome = await signInRegistered(remoteServer(server), { store: credentials, privacy: registry.privacy(), openUrl: options.openUrl ?? openBrowser });
      if (!outcome.ok) throw new Error(outcome.message);
      return { server_name: outcome.server_name, tools: outcome.tools };
    },
    'mcp.sign_out': async ({ server }) => ({ signed_out: await signOutRegistered(remoteServer(server), credentials) }),
    'mcp.auth_status': async ({ server }) => {
      const entry = registry.server(server);
      if (!entry) throw new RequestError('not_found', `no registered server "${server}"`);
      const can = canSignIn(entry);
      const signedIn = can && (await signedInRegistered(entry, credentials));
      // How the sign-in's client was obtained: a dynamic registration is deprecated in MCP 2026-07-28 (the registry says so).
      const client = can ? await signInClientRegistered(entry, credentials) : undefined;
      return { can_sign_in: can, signed_in: signedIn, ...(client === undefined ? {} : { client }) };
    },
    'servers.list': async () => ({ servers: registry.servers() }),
    'servers.register': async ({ server, replace }) => actions.run(plans.registerServerPlan(registry, server, replace)),
    'servers.remove': async ({ id }) => actions.run(plans.removeServerPlan(registry, id)),
    'servers.trust': async ({ id, trust }) => actions.run(plans.setTrustPlan(registry, id, trust)),
    'workspaces.list': async () => ({ workspaces: registry.workspaces() }),
    'workspaces.register': async ({ workspace, replace }) => actions.run(plans.registerWorkspacePlan(registry, options.dataDir, workspace, replace)),
    'workspaces.remove': async ({ id }) => actions.run(plans.removeWorkspacePlan(registry, id)),
    'privacy.get': async () => ({ policy: registry.privacy() }),
    'privacy.set': async ({ policy }) => actions.run(plans.setPrivacyPlan(registry, policy)),
    'effects.list': async () => ({ overrides: registry.effects() }),
    'effects.set': async ({ server, tool, effect }) => actions.run(plans.setEffectPlan(registry, server, tool, effect)),
    'actions.confirm': async ({ confirmation_id, code }) => actions.confirm(confirmation_id, code),
    'actions.cancel': async ({ confirmation_id }) => ({ cancelled: actions.cancel(confirmation_id) }),
    'audit.list': async ({ limit }) => ({ records: audit.list(limit) }),
    'interventions.pending': async () => ({ interventions: runs.pendingShown() }),
    'interventions.answer': async ({ run_id, intervention_id, answer }) => {
      if (runs.answer(run_id, intervention_id, answer)) return { resumed: true };
      // Nothing resumed: an id that belongs to another run, or a run that waits for something else, is refused in words;
      // a run that waits for nothing (answered in another window, stopped) is `resumed: false`.
      const pending = runs.pending();
      const asked = pending.find((i) => i.id === intervention_id);
      if (asked && asked.run_id !== run_id) throw new RequestError('not_found', `the question ${intervention_id} belongs to run ${asked.run_id}, not to run ${run_id}`);
      const waits = pending.filter((i) => i.run_id === run_id).map((i) => i.id);
      if (!asked && waits.length > 0) throw new RequestError('not_found', `run ${run_id} does not wait for ${intervention_id}: it waits for ${waits.join(', ')}`);
      return { resumed: false };
    },
    'asks.pending': async () => ({ asks: asks.list() }),
    'asks.answer': async (answer) => {
      const outcome = asks.answer(answer);
      if (!outcome.answered && outcome.reason === 'invalid') throw new RequestError('invalid_params', `the answer does not fit the form: ${Object.entries(outcome.issues).map(([field, problem]) => `${field}: ${problem}`).join('; ')}`);
      return { answered: outcome.answered };
    },
  };

  /** A registered server that can sign in with OAuth, or the request fails saying why not. */
  function remoteServer(id: string): RegisteredServer {
    const entry = registry.server(id);
    if (!entry) throw new RequestError('not_found', `no registered server "${id}"`);
    if (!canSignIn(entry)) throw new RequestError('invalid_params', `server "${id}" is not a remote (url) server without its own Authorization header: there is nothing to sign in to`);
    return entry;
  }

  const fail = (id: number, code: HostErrorCode, message: string): ResponseFrame => ({ kind: 'response', id, ok: false, error: { code, message } });

  // A steward command typed while this host holds the folder runs here (issue 22): one history.
  const hosted: HostedFolder = {
    dataDir: options.dataDir,
    ledger,
    credentials,
    onEvent,
    flush,
    checkpoints,
    workflowCheckpoints,
    runs,
    journal: outbox,
    history,
    watch(runId, listener) {
      const set = watchers.get(runId) ?? new Set();
      set.add(listener);
      watchers.set(runId, set);
      return () => {
        set.delete(listener);
        if (set.size === 0 && watchers.get(runId) === set) watchers.delete(runId);
      };
    },
  };
  let channel: CliChannel | undefined;
  if (options.cliChannel !== false) {
    try {
      channel = await openCliChannel({
        dataDir: options.dataDir,
        shell: options.shell,
        log,
        run: (argv, io) => runCli(argv, { ...io, hosted }),
        fold: (spool) => foldSpool(outbox, options.dataDir, spool, log).added,
        ...(options.launchLink ? { launchLink: options.launchLink } : {}),
      });
    } catch (error) {
      // The app works without it: a steward command then says the folder is in use.
      log(`the command-line channel could not open (steward commands cannot reach this app): ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  return {
    async handle(raw, session) {
      // Parsing, validating and logging all recurse: a frame too deep for them is refused by name.
      if (jsonDepthExceeds(raw)) return fail(0, 'bad_request', `malformed request: ${new JsonTooDeepError(MAX_JSON_DEPTH).message}`);
      const frame = ClientFrame.safeParse(raw);
      if (!frame.success) {
        const id = typeof (raw as { id?: unknown } | null)?.id === 'number' ? (raw as { id: number }).id : 0;
        return fail(Number.isSafeInteger(id) && id >= 0 ? id : 0, 'bad_request', `malformed request: ${formatZodIssues(frame.error)}`);
      }
      const { id, method } = frame.data;
      if (!isHostMethod(method)) return fail(id, 'unknown_method', `unknown method "${method}"`);
      if (method !== 'events.cursor' && method !== 'events.ack') askedAt = performance.now();
      const params = HOST_METHODS[method].params.safeParse(frame.data.params ?? {});
      if (!params.success) return fail(id, 'invalid_params', `invalid params for ${method}: ${formatZodIssues(params.error)}`);
      try {
        const handler = handlers[method] as (p: unknown, s: HostSession) => Promise<unknown>;
        const result = await handler(params.data, session);
        return { kind: 'response', id, ok: true, result };
      } catch (err) {
        if (err instanceof SpecError) return fail(id, 'invalid_params', err.message);
        if (err instanceof RequestError) return fail(id, err.code, err.message);
        if (err instanceof RegistryFileError) log(err.message);
        if (err instanceof CredentialStoreError) {
          // An expected condition of the machine, not a bug: one line here, the plain words to the page.
          log(`${method}: ${err.message}`);
          return fail(id, 'host_error', credentialErrorText(err));
        }
        log(`host error in ${method}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        return fail(id, 'host_error', err instanceof Error ? err.message : String(err));
      }
    },
    detach(session) {
      askPages.delete(session.id);
      feed.detach(session.id);
    },
    async close() {
      // Forwarded commands first: their runs are cancelled and record their end in the journal.
      await channel?.close();
      commandRuns.stop();
      stopRetention();
      for (const stop of nudges) stop();
      backgroundFold.stop();
      stopExpiry();
      asks.close();
      history.dispose();
      feed.close();
      trials.stop();
      // The injection check under way stops after its current case (it writes no report then).
      await injection.stop();
      // So does a teacher replay under way (after the model call in flight).
      await teacherReplay.stop();
      await runs.closeAll();
      flush();
      outbox.close();
      ledger.close();
    },
  };
}
