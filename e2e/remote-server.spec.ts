import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import type { HostProcess } from '../test-support/host-process';
import { startRemoteMcpServer, type RemoteMcpServer } from '../test-support/remote-mcp-server';
import { approveWithTerminalCode, shot } from './helpers';
import { startHostOnPort } from './host-on-port';

/**
 * A remote MCP server (issue 13) registered from the app: the Add server form's "Remote (URL)",
 * a header refused when a key is pasted instead of a credential's name, the person at the host
 * confirming, and Inspect listing the tools of a real SDK server over Streamable HTTP on loopback.
 */

let remote: RemoteMcpServer;
let host: HostProcess;
let dataDir: string;
let page: Page;

test.beforeAll(async ({ browser }) => {
  ensureBuilt();
  remote = await startRemoteMcpServer('streamable');
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-remote-'));
  host = await startHostOnPort(dataDir, 0);
  page = await browser.newPage();
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
  await remote?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a person registers a remote MCP server by its URL and inspects its tools', async () => {
  await page.goto(host.url);
  await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 20_000 });
  await page.evaluate(() => (window.location.hash = '#/registry'));
  await page.getByTestId('add-server').click();
  const form = page.getByTestId('server-form');
  await form.getByTestId('server-id').fill('remote');
  await form.getByTestId('server-label').fill('Remote test server');
  await form.getByTestId('server-kind-url').check();
  await expect(form.getByTestId('server-args')).toHaveCount(0);
  await form.getByTestId('server-url').fill(remote.url());

  // A key pasted where a credential's name goes is refused in the page: nothing is sent.
  await form.getByTestId('server-env-add').click();
  await form.getByTestId('server-env-key-0').fill('Authorization');
  const credential = form.getByTestId('server-env-credential-0');
  if (await credential.count()) await credential.selectOption('__type-a-name');
  await form.getByTestId('server-env-name-0').fill('sk-proj-AbCdEf0123456789AbCdEf0123456789');
  await form.getByTestId('save-server').click();
  await expect(form.getByText(/looks like a key itself/)).toBeVisible();
  await shot(page, '60-remote-server-form');
  await form.getByRole('button', { name: 'Remove header Authorization' }).click();

  await approveWithTerminalCode(page, host, () => form.getByTestId('save-server').click());

  const server = page.getByTestId('registry-server').filter({ hasText: 'Remote test server' });
  await expect(server).toContainText(remote.url());
  await server.getByTestId('inspect-server-remote').click();
  await expect(server.locator('[data-testid=registry-tool][data-tool=echo]')).toBeVisible();
  await expect(server.locator('[data-testid=registry-tool][data-tool=die]')).toBeVisible();
  // Issue 30: the protocol revision the server and Steward agreed on, per server.
  await expect(server.getByTestId('protocol-revision-remote')).toHaveText(/speaks MCP 2025-(06-18|11-25)/);
  await shot(page, '61-remote-server-inspected');
  expect(remote.requests.length).toBeGreaterThan(0);
});

test('a machine-to-machine client is registered by its id and its private key’s credential name (issue 30)', async () => {
  await page.goto(host.url);
  await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 20_000 });
  await page.evaluate(() => (window.location.hash = '#/registry'));
  await page.getByTestId('add-server').click();
  const form = page.getByTestId('server-form');
  await form.getByTestId('server-id').fill('m2m');
  await form.getByTestId('server-label').fill('Machine client');
  await form.getByTestId('server-kind-url').check();
  await form.getByTestId('server-url').fill(remote.url());
  await form.getByTestId('server-oauth-client-id').fill('svc');
  await expect(form.getByTestId('server-oauth-key-credential')).toHaveCount(0);
  await form.getByTestId('server-oauth-machine').check();
  // Neither a secret nor a key: the form says what it needs, nothing is sent.
  await form.getByTestId('save-server').click();
  await expect(form.getByText(/proves itself with its secret or its private key/)).toBeVisible();
  const key = form.getByTestId('server-oauth-key-credential');
  if (await key.count()) await key.selectOption('__type-a-name');
  await form.getByTestId('server-oauth-key-name').fill('svc-private-key');
  await shot(page, '62-remote-server-machine-client');
  await approveWithTerminalCode(
    page,
    host,
    () => form.getByTestId('save-server').click(),
    (panel) => expect(panel).toContainText('machine-to-machine client svc (private key keychain:svc-private-key)'),
  );
  await expect(page.getByTestId('registry-server').filter({ hasText: 'Machine client' })).toBeVisible();
});

test('an enterprise-managed server is registered from the form: its identity provider, and its ID token by credential name (SEP-990)', async () => {
  await page.goto(host.url);
  await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 20_000 });
  await page.evaluate(() => (window.location.hash = '#/registry'));
  await page.getByTestId('add-server').click();
  const form = page.getByTestId('server-form');
  await form.getByTestId('server-id').fill('corp');
  await form.getByTestId('server-label').fill('Corp tools');
  await form.getByTestId('server-kind-url').check();
  await form.getByTestId('server-url').fill(remote.url());
  await form.getByTestId('server-oauth-enterprise').check();
  await form.getByTestId('server-oauth-client-id').fill('steward-at-as');
  await form.getByTestId('server-oauth-idp-issuer').fill('http://idp.example.com');
  await form.getByTestId('server-oauth-idp-client-id').fill('steward-at-idp');
  // A plain-http identity provider and no ID token: said on their fields, nothing is sent.
  await form.getByTestId('save-server').click();
  await expect(form.getByText(/must be an https:\/\/ address/)).toBeVisible();
  await expect(form.getByText(/Pick the credential that holds your ID token/)).toBeVisible();
  await form.getByTestId('server-oauth').evaluate((section) => section.scrollIntoView({ block: 'start' }));
  await shot(page, '64-remote-server-enterprise-managed', false);
  await form.getByTestId('server-oauth-idp-issuer').fill('https://idp.example.com');
  const token = form.getByTestId('server-oauth-idp-token-credential');
  if (await token.count()) await token.selectOption('__type-a-name');
  await form.getByTestId('server-oauth-idp-token-name').fill('corp-id-token');
  await approveWithTerminalCode(
    page,
    host,
    () => form.getByTestId('save-server').click(),
    (panel) => expect(panel).toContainText('runs exchange the ID token keychain:corp-id-token at https://idp.example.com'),
  );
  await expect(page.getByTestId('sign-in-way-corp')).toContainText('signs in through your organisation’s identity provider (https://idp.example.com)');
  await page.getByTestId('sign-in-way-corp').scrollIntoViewIfNeeded();
  await shot(page, '65-remote-server-enterprise-card', false);
});

test('stdio servers negotiate too: a 2026-07-28 server speaks it, the shipped everything server speaks 2025 and its deprecated logging is marked (issue 30)', async () => {
  await page.goto(host.url);
  await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 20_000 });
  await page.evaluate(() => (window.location.hash = '#/registry'));
  await page.getByTestId('add-server').click();
  const form = page.getByTestId('server-form');
  await form.getByTestId('server-id').fill('modern');
  await form.getByTestId('server-label').fill('Modern stdio server');
  await form.getByTestId('server-kind-command').check();
  await form.getByTestId('server-command').fill(process.execPath);
  await form.getByTestId('server-args').fill(join(process.cwd(), 'test-support', 'modern-stdio-mcp-server.mjs'));
  await approveWithTerminalCode(page, host, () => form.getByTestId('save-server').click());

  const modern = page.getByTestId('registry-server').filter({ hasText: 'Modern stdio server' });
  await modern.getByTestId('inspect-server-modern').click();
  await expect(modern.locator('[data-testid=registry-tool][data-tool=book_room]')).toBeVisible();
  await expect(modern.getByTestId('protocol-revision-modern')).toHaveText(/speaks MCP 2026-07-28/);
  await expect(modern.getByTestId('deprecated-features-modern')).toHaveCount(0);

  const everything = page.getByTestId('registry-server').filter({ hasText: 'Everything test server' });
  await everything.getByTestId('inspect-server-everything').click();
  await expect(everything.getByTestId('protocol-revision-everything')).toHaveText(/speaks MCP 2025-(06-18|11-25)/);
  await expect(everything.getByTestId('deprecated-features-everything')).toContainText('This server sends log messages (logging) — deprecated in MCP 2026-07-28, still supported for this server.');
  await everything.scrollIntoViewIfNeeded();
  await shot(page, '63-stdio-revisions-and-deprecated-features');
});
