import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AgentSpec } from '@shared/contracts/spec';
import type { RunEvent } from '@shared/contracts/events';
import type { PendingAsk } from '@shared/contracts/person-ask';
import { ModelScript } from '@shared/contracts/script';
import { LOCAL_ONLY } from '@shared/policy/privacy';
import { runAgent } from '../../engine/run-agent';
import { resolveProvider } from '../../providers/resolve-provider';
import { createKeychainStore } from '../../credentials/keychain-store';
import { createMemoryLedger } from '../idempotency-ledger';
import { tempNotesWorkspace } from '../../../test-support/workspace';
import { headlessBrowser } from '../conformance/headless-browser';
import { PersonAsks } from '../person-asks';
import { appConsent } from './app-consent';
import { oauthCredentialName } from './oauth-record';
import { signInRemoteServer } from './sign-in';
import { startOAuthTestServer, type OAuthTestServer } from './oauth-test-server';

/**
 * Scope step-up mid-run in the app (issue 30): a real MCP server on loopback whose `write` tool needs
 * `mcp:write` on top of the `mcp:basic` the person signed in with, its authorization server a test
 * double that approves at once, the real OS keychain (Secret Service under D-Bus), and a run with a
 * scripted model (the test double at the model boundary) whose consent goes through the app's
 * PersonAsks. The person is played by answering the ask; their browser by a headless visit of the
 * link the host opens (as the registry's Sign in test does).
 */
const hasSessionBus = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);
const store = createKeychainStore({ service: `steward-test-${randomBytes(6).toString('hex')}` });
afterAll(async () => {
  if (hasSessionBus) for (const name of await store.list()) await store.delete(name);
});

let server: OAuthTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function writeRun(url: string) {
  const spec = AgentSpec.parse({
    format: 'steward/v1',
    kind: 'agent',
    id: 'step-up-probe',
    name: 'Step-up probe',
    instructions: 'Use the remote server.',
    task: 'Write something.',
    servers: [{ id: 'remote', url, tools: ['write'] }],
    tool_effects: { 'remote/write': { effect: 'read' } },
    supervision: { phase: 2 },
  });
  const script = ModelScript.parse({
    latency_ms: 0,
    student: [{ json: { decision_type: 'tool_call', tool_name: 'write', arguments: { text: 'hi' } } }, { json: { decision_type: 'complete', output: 'done' } }],
    teacher: [
      { json: { verdict: 'accept', reason_codes: [], explanation: 'Harmless.' } },
      { json: { verdict: 'accept', reason_codes: [], explanation: 'Done.' } },
    ],
  });
  return { spec, script };
}

/** Signs in (scope mcp:basic), then starts the run with the app's consent; resolves the first ask the person sees. */
async function startStepUpRun() {
  server = await startOAuthTestServer({ stepUp: { tool: 'write', scope: 'mcp:write' } });
  const url = server.mcpUrl;
  expect((await signInRemoteServer({ id: 'remote', url, args: [] }, { store, privacy: LOCAL_ONLY, open: headlessBrowser })).ok).toBe(true);
  expect(server.log.authorizations.map((a) => a.scopes)).toEqual([['mcp:basic']]);
  const pages: PendingAsk[][] = [];
  let shown: (ask: PendingAsk) => void = () => undefined;
  const firstAsk = new Promise<PendingAsk>((resolve) => (shown = resolve));
  const asks = new PersonAsks({
    onChange: (list) => {
      pages.push(list);
      if (list[0]) shown(list[0]);
    },
  });
  const opened: string[] = [];
  const callbacks: URL[] = [];
  const visits: Promise<void>[] = [];
  const { spec, script } = writeRun(url);
  const ws = tempNotesWorkspace();
  const events: RunEvent[] = [];
  const run = runAgent({
    spec,
    specDir: ws.dir,
    ledger: createMemoryLedger(),
    onEvent: (e) => events.push(e),
    credentials: store,
    oauthConsent: appConsent(asks, 'run-1', undefined, (link) => {
      opened.push(link);
      visits.push(visitKeepingCallback(new URL(link), callbacks));
    }),
    providers: { student: resolveProvider({ provider: 'script' }, 'student', { script }), teacher: resolveProvider({ provider: 'script' }, 'teacher', { script }) },
  }).finally(() => ws.cleanup());
  return { asks, pages, opened, callbacks, visits, events, run, ask: await firstAsk };
}

/** The headless browser, keeping the redirect back to Steward (it carries the code and the state) so a test can search for them. */
async function visitKeepingCallback(authorizationUrl: URL, callbacks: URL[]): Promise<void> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  await response.body?.cancel().catch(() => undefined);
  const back = new URL(response.headers.get('location') ?? '', authorizationUrl);
  callbacks.push(back);
  await headlessBrowser(back);
}

/** The run's record of the consent: an `mcp.elicitation` in url mode, asked for authorization. */
function consentEvents(events: readonly RunEvent[]): RunEvent[] {
  return events.filter((e) => e.type === 'mcp.elicitation');
}

describe.skipIf(!hasSessionBus)('a wider scope asked for mid-run in the app (needs a D-Bus session with a Secret Service; skipped without one)', () => {
  it('the run waits with the ask listed; the person signs in to continue, the same call goes on under the union scope, and no token shows', async () => {
    const { asks, pages, opened, callbacks, visits, events, run, ask } = await startStepUpRun();
    expect(ask).toMatchObject({ kind: 'consent', run_id: 'run-1', server: 'remote', scopes: ['mcp:basic', 'mcp:write'], message: 'MCP server "remote" asks for more access: mcp:basic and mcp:write.' });
    // Nothing opens before the person agrees.
    expect(opened).toEqual([]);
    expect(asks.answer({ ask_id: ask.id, action: 'accept' })).toEqual({ answered: true });
    const result = await run;
    await Promise.all(visits);
    expect(result.status, `${result.message} ${result.setup_error}`).toBe('completed');
    expect(result.executions[0]?.content).toBe('written: hi');
    expect(opened).toHaveLength(1);
    expect(new URL(opened[0] ?? '').origin).toBe(new URL(server?.issuer ?? '').origin);
    // SEP-2350: the second authorization asked for what was granted and what was challenged.
    expect(server?.log.authorizations.map((a) => a.scopes)).toEqual([['mcp:basic'], ['mcp:basic', 'mcp:write']]);
    // The new tokens are in the keychain entry, keyed by the issuer; the page and the run's events never saw one.
    const stored = (await store.get(oauthCredentialName(server?.mcpUrl ?? ''))) ?? '';
    expect(JSON.parse(stored)).toMatchObject({ issuer: server?.issuer });
    const latest = server?.issued.at(-2) ?? '';
    expect(stored).toContain(latest);
    expect(asks.list()).toEqual([]);
    const written = JSON.stringify(pages) + JSON.stringify(events) + JSON.stringify(result);
    for (const secret of server?.issued ?? []) expect(written).not.toContain(secret);
    // The trace records the consent and that it was given, in words: never the link, its state or the code.
    expect(consentEvents(events)).toEqual([
      expect.objectContaining({ type: 'mcp.elicitation', server: 'remote', mode: 'url', message: 'MCP server "remote" asks for more access: mcp:basic and mcp:write.', fields: [], action: 'accept', asked_for: 'authorization' }),
    ]);
    const link = new URL(opened[0] ?? '');
    const back = callbacks[0];
    const planted = [link.href, link.search, link.searchParams.get('state'), link.searchParams.get('code_challenge'), back?.searchParams.get('code'), back?.searchParams.get('state')];
    expect(planted.every((value) => typeof value === 'string' && value.length >= 8)).toBe(true);
    const traced = JSON.stringify(events);
    for (const value of planted) expect(traced).not.toContain(value);
  });

  it('declining ends the call with the reason in words, opens nothing, and keeps the earlier sign-in', async () => {
    const { asks, opened, events, run, ask } = await startStepUpRun();
    const before = await store.get(oauthCredentialName(server?.mcpUrl ?? ''));
    expect(asks.answer({ ask_id: ask.id, action: 'decline' })).toEqual({ answered: true });
    const result = await run;
    expect(opened).toEqual([]);
    // The trace says the person was asked and declined.
    expect(consentEvents(events)).toEqual([
      expect.objectContaining({ type: 'mcp.elicitation', server: 'remote', mode: 'url', message: 'MCP server "remote" asks for more access: mcp:basic and mcp:write.', fields: [], action: 'decline', asked_for: 'authorization' }),
    ]);
    expect(JSON.stringify(events)).not.toContain('state=');
    // A failed tool call like any other: the model is told, and the run goes on (here the script completes).
    expect(result.executions).toEqual([expect.objectContaining({ tool: 'write', ok: false, error: 'MCP server "remote" failed to run "write": MCP server "remote" asked for more access (mcp:basic and mcp:write) and you declined, so the call was not made' })]);
    expect(result.status).toBe('completed');
    expect(server?.log.authorizations).toHaveLength(1);
    expect(await store.get(oauthCredentialName(server?.mcpUrl ?? ''))).toBe(before);
  });

  it('at a terminal (the page shown without asking), a person who refuses at the authorization server is recorded as declining, in words only', async () => {
    server = await startOAuthTestServer({ stepUp: { tool: 'write', scope: 'mcp:write' } });
    expect((await signInRemoteServer({ id: 'remote', url: server.mcpUrl, args: [] }, { store, privacy: LOCAL_ONLY, open: headlessBrowser })).ok).toBe(true);
    const { spec, script } = writeRun(server.mcpUrl);
    const ws = tempNotesWorkspace();
    const events: RunEvent[] = [];
    const shown: URL[] = [];
    const result = await runAgent({
      spec,
      specDir: ws.dir,
      ledger: createMemoryLedger(),
      onEvent: (e) => events.push(e),
      credentials: store,
      // As `steward run` does: the page is shown; the person refuses there, and the browser comes back with access_denied.
      oauthConsent: async (_server, url) => {
        shown.push(url);
        const back = new URL(url.searchParams.get('redirect_uri') ?? '');
        back.searchParams.set('error', 'access_denied');
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        void fetch(back).then((r) => r.body?.cancel());
      },
      providers: { student: resolveProvider({ provider: 'script' }, 'student', { script }), teacher: resolveProvider({ provider: 'script' }, 'teacher', { script }) },
    }).finally(() => ws.cleanup());
    expect(result.executions).toEqual([expect.objectContaining({ tool: 'write', ok: false })]);
    expect(consentEvents(events)).toEqual([
      expect.objectContaining({ type: 'mcp.elicitation', server: 'remote', mode: 'url', message: 'MCP server "remote" asks for more access: mcp:basic and mcp:write.', fields: [], action: 'decline', asked_for: 'authorization' }),
    ]);
    const traced = JSON.stringify(events);
    const state = shown[0]?.searchParams.get('state') ?? '';
    expect(state.length).toBeGreaterThan(8);
    expect(traced).not.toContain(state);
    expect(traced).not.toContain(shown[0]?.href ?? '');
  });
});
