import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { AsyncEntry } from '@napi-rs/keyring';
import { oauthCredentialName } from '../src-main/mcp/oauth/oauth-record';
import { startOAuthTestServer, type OAuthTestServer } from '../src-main/mcp/oauth/oauth-test-server';
import { ensureBuilt } from '../test-support/ensure-built';
import { connectHost, startHostProcess, type HostProcess } from '../test-support/host-process';
import { oneCallWorkflow } from '../test-support/elicitation-workflow';
import { pageStorage, shot, storedEvents, terminalCode } from './helpers';

/**
 * Sign in from the app (issue 13): a real Streamable HTTP MCP server on loopback that requires
 * OAuth tokens, its authorization server built from the SDK's server auth helpers (a test double of
 * the person's identity provider that approves at once), the browser-run host with the real OS
 * keychain (Secret Service under D-Bus). The host's "open the system browser" is `xdg-open`; here
 * a stand-in on the host's PATH only writes the link down, and this test opens it in Chromium, as
 * the person would. The issued tokens are planted values searched for in the page and its storage.
 */

let oauth: OAuthTestServer;
let host: HostProcess;
let dataDir: string;
let opened: string;
let page: Page;
/** The host's keychain entry for this server, read the way the host writes it (service "steward", Secret Service). */
const keychainEntry = () => new AsyncEntry('steward', oauthCredentialName(oauth.mcpUrl), { linux: { store: 'secret-service' } });

test.beforeAll(async ({ browser }) => {
  test.skip(!process.env.DBUS_SESSION_BUS_ADDRESS, 'no D-Bus session bus: the OS keychain is not reachable here');
  ensureBuilt();
  oauth = await startOAuthTestServer();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-oauth-'));
  // The system browser, played by a script: it records the link the host asks it to open.
  const bin = join(dataDir, 'bin');
  mkdirSync(bin);
  opened = join(dataDir, 'opened.txt');
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`);
  chmodSync(join(bin, 'xdg-open'), 0o755);
  host = await startHostProcess(join(dataDir, 'data'), { PATH: `${bin}:${process.env.PATH ?? ''}` });
  page = await browser.newPage();
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
  await oauth?.close();
  if (oauth) await keychainEntry().deletePassword().catch(() => false);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The link the host handed to the system browser, once it has. */
async function openedLink(): Promise<string> {
  await expect.poll(() => existsSync(opened) && readFileSync(opened, 'utf8').trim() !== '', { timeout: 30_000 }).toBe(true);
  return readFileSync(opened, 'utf8').trim().split('\n').at(-1) ?? '';
}

/** How many links the host has handed to the system browser so far. */
const openedCount = () => (existsSync(opened) ? readFileSync(opened, 'utf8').trim().split('\n').filter((l) => l !== '').length : 0);

/** Every file the host wrote in its data folder, as text. */
function dataFolderText(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile())
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
}

test('a person adds a remote server that needs OAuth, signs in from the app through the browser, sees its tools, and signs out', async ({ browser }) => {
  await page.goto(host.url);
  await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 20_000 });
  await page.evaluate(() => (window.location.hash = '#/registry'));
  await page.getByTestId('add-server').click();
  const form = page.getByTestId('server-form');
  await form.getByTestId('server-id').fill('signin');
  await form.getByTestId('server-label').fill('OAuth test server');
  await form.getByTestId('server-kind-url').check();
  await form.getByTestId('server-url').fill(oauth.mcpUrl);

  // The sign-in client section: a secret pasted where its credential's name goes is refused in the page.
  const section = form.getByTestId('server-oauth');
  await expect(section).toContainText('Steward registers itself');
  await section.getByTestId('server-oauth-client-id').fill('pre-registered-app');
  const picker = section.getByTestId('server-oauth-secret-credential');
  if (await picker.count()) await picker.selectOption('__type-a-name');
  await section.getByTestId('server-oauth-secret-name').fill('cs-AbCdEf0123456789AbCdEf0123456789xyz');
  await form.getByTestId('save-server').click();
  await expect(section.getByText(/looks like a key itself/)).toBeVisible();
  await shot(page, '62-oauth-server-form');
  // This provider registers clients itself: leave the section empty.
  await section.getByTestId('server-oauth-client-id').fill('');
  await section.getByTestId('server-oauth-secret-name').fill('');

  const printed = host.stderr?.().length ?? 0;
  await form.getByTestId('save-server').click();
  const panel = page.getByTestId('confirm-code-panel');
  await panel.getByTestId('confirm-code').fill(await terminalCode(() => host.stderr?.() ?? '', printed));
  await panel.getByTestId('confirm-approve').click();

  const server = page.getByTestId('registry-server').filter({ hasText: 'OAuth test server' });
  await expect(server).toContainText(oauth.mcpUrl);
  // Not signed in yet: Inspect is refused by the server, saying how to sign in.
  await server.getByTestId('inspect-server-signin').click();
  await expect(server.getByTestId('registry-error')).toContainText('sign in');

  await server.getByTestId('sign-in-server-signin').click();
  await expect(server.getByTestId('sign-in-server-signin')).toContainText('Waiting for the browser');
  const link = new URL(await openedLink());
  expect(link.origin).toBe(new URL(oauth.issuer).origin);
  expect(link.searchParams.get('code_challenge_method')).toBe('S256');
  // The person's browser: the provider approves and sends it back to Steward's loopback address.
  const tab = await browser.newPage();
  await tab.goto(link.href);
  await expect(tab.locator('body')).toContainText('Signed in. You can close this tab');
  expect(new URL(tab.url()).hostname).toBe('127.0.0.1');
  await shot(tab, '63-oauth-browser-came-back', false);
  await tab.close();

  await expect(page.getByTestId('registry-status')).toContainText('Signed in to “signin” (oauth-test-server, 1 tool)', { timeout: 30_000 });
  await expect(server.getByTestId('sign-out-server-signin')).toBeVisible();
  await server.getByTestId('inspect-server-signin').click();
  await expect(server.locator('[data-testid=registry-tool][data-tool=echo]')).toBeVisible();
  await expect(server.getByTestId('registry-error')).toHaveCount(0);
  // The test server registered Steward's client on the spot: deprecated in MCP 2026-07-28, and the card says so.
  await expect(server.getByTestId('deprecated-features-signin')).toContainText('This server is signed in to with a client Steward registered for it on the spot (dynamic client registration) — deprecated in MCP 2026-07-28, still supported for this server.');
  await shot(page, '64-oauth-signed-in-tools');
  expect(oauth.log.registrations).toHaveLength(1);
  expect(oauth.log.accepted.length).toBeGreaterThan(0);

  // The tokens are in the OS keychain, and nowhere the page or the data folder keeps anything.
  const record = await keychainEntry().getPassword();
  expect(record).toContain(oauth.log.accepted[0]);
  const seen = (await page.content()) + (await pageStorage(page)) + dataFolderText(join(dataDir, 'data')) + (host.stderr?.() ?? '');
  expect(oauth.issued.length).toBeGreaterThan(0);
  for (const token of oauth.issued) expect(seen).not.toContain(token);

  await server.getByTestId('sign-out-server-signin').click();
  await expect(page.getByTestId('registry-status')).toContainText('Signed out of “signin”');
  await expect(server.getByTestId('sign-in-server-signin')).toBeVisible();
  await expect(server.getByTestId('deprecated-features-signin')).toHaveCount(0);
  expect(await keychainEntry().getPassword()).toBeNull();
  await shot(page, '65-oauth-signed-out');
});

test('a run started in the app waits when the server asks for more access; the person signs in to continue from the card and the call goes on (issue 30)', async ({ browser }) => {
  test.setTimeout(120_000);
  const wide = await startOAuthTestServer({ stepUp: { tool: 'write', scope: 'mcp:write' } });
  const entry = new AsyncEntry('steward', oauthCredentialName(wide.mcpUrl), { linux: { store: 'secret-service' } });
  try {
    const api = await connectHost(host);
    const confirmed = async (start: () => Promise<unknown>) => {
      const printed = host.stderr?.().length ?? 0;
      const result = (await start()) as { status: string; confirmation_id?: string };
      if (result.status === 'done') return;
      const code = await terminalCode(() => host.stderr?.() ?? '', printed);
      expect(await api.request('actions.confirm', { confirmation_id: result.confirmation_id ?? '', code })).toMatchObject({ status: 'done' });
    };
    await confirmed(() => api.request('servers.register', { server: { id: 'wide', label: 'Step-up server', url: wide.mcpUrl }, replace: false }));
    await confirmed(() => api.request('effects.set', { server: 'wide', tool: 'write', effect: { effect: 'read' } }));
    // Signed in with mcp:basic, through the browser as the first test does.
    const before = openedCount();
    const signIn = api.request('mcp.sign_in', { server: 'wide' });
    await expect.poll(openedCount, { timeout: 30_000 }).toBe(before + 1);
    const signInTab = await browser.newPage();
    await signInTab.goto(await openedLink());
    await signInTab.close();
    await signIn;
    await api.request('workflows.save', { workflow: oneCallWorkflow('step-up', 'Step-up', { server: { id: 'wide', server: 'wide' }, tool: 'write', arguments: { text: 'hi' } }) });
    const { run_id } = (await api.request('workflows.run', { id: 'step-up', inputs: { name: 'x' } })) as { run_id: string };
    api.close();

    await page.goto(host.url);
    await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), run_id);
    const card = page.getByTestId('server-ask');
    await expect(card).toHaveAttribute('data-kind', 'consent', { timeout: 60_000 });
    await expect(card).toContainText('MCP server wide asks for more access');
    await expect(card).toContainText('MCP server "wide" asks for more access: mcp:basic and mcp:write.');
    await expect(page.getByTestId('server-ask-accept')).toHaveText('Sign in to continue');
    await shot(page, '66-oauth-step-up-card');
    const asked = openedCount();
    await page.getByTestId('server-ask-accept').click();
    await expect.poll(openedCount, { timeout: 30_000 }).toBe(asked + 1);
    const link = new URL(await openedLink());
    expect(link.searchParams.get('scope')).toBe('mcp:basic mcp:write');
    const tab = await browser.newPage();
    await tab.goto(link.href);
    await expect(tab.locator('body')).toContainText('Signed in. You can close this tab');
    await tab.close();
    await expect(card).toHaveCount(0, { timeout: 30_000 });
    await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
    const events = await storedEvents(page, run_id);
    expect(JSON.stringify(events)).toContain('written: hi');
    // The trace records the consent and that it was given, in words only: never the link (its state).
    expect(events).toContainEqual(expect.objectContaining({ type: 'mcp.elicitation', server: 'wide', mode: 'url', action: 'accept', asked_for: 'authorization', message: 'MCP server "wide" asks for more access: mcp:basic and mcp:write.' }));
    expect(JSON.stringify(events)).not.toContain(link.searchParams.get('state') ?? 'no state');
    expect(wide.log.authorizations.map((a) => a.scopes)).toEqual([['mcp:basic'], ['mcp:basic', 'mcp:write']]);
    const seen = (await page.content()) + (await pageStorage(page)) + (host.stderr?.() ?? '');
    for (const token of wide.issued) expect(seen).not.toContain(token);
  } finally {
    await wide.close();
    await entry.deletePassword().catch(() => false);
  }
});
