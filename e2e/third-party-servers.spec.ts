import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { approveWithTerminalCode, shot } from './helpers';
import { ownHostAndPage } from './own-host';

/**
 * The MCP servers installed with Steward (issue 29) from the app: the Add server form offers
 * PostgreSQL, PDF and sequential thinking by package with arguments to start from, refuses a
 * database URL with its password in it, and a registered sequential-thinking server is inspected
 * with its shipped effect. Supervised calls to all three: src-main/mcp/third-party/.
 */

const own = ownHostAndPage('third-party');

test('a person registers the installed servers by package: a password in the database URL is refused, sequential thinking is inspected', async () => {
  const { page, host, dataDir } = own;
  await page.goto(host.url);
  await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 20_000 });
  await page.evaluate(() => (window.location.hash = '#/registry'));
  await page.getByTestId('add-server').click();
  const form = page.getByTestId('server-form');
  await form.getByTestId('server-kind-package').check();
  const picker = form.getByTestId('server-package');
  for (const label of ['PostgreSQL', 'PDF reader', 'Sequential thinking']) await expect(picker.locator('option', { hasText: label })).toHaveCount(1);

  await form.getByTestId('server-id').fill('shop-db');
  await form.getByTestId('server-label').fill('Shop database');
  await picker.selectOption('@modelcontextprotocol/server-postgres');
  await expect(form.getByTestId('server-args')).toHaveValue('postgresql://USER@HOST:5432/DATABASE');
  await form.getByTestId('server-args').fill('postgresql://reader:hunter2-shop-secret@127.0.0.1:5432/shop');
  await form.getByTestId('save-server').click();
  await expect(form.getByText(/looks like a raw secret/)).toBeVisible();
  await shot(page, '70-postgres-password-refused');

  await form.getByTestId('server-id').fill('thinking');
  await form.getByTestId('server-label').fill('Sequential thinking');
  await picker.selectOption('@modelcontextprotocol/server-sequential-thinking');
  await form.getByTestId('server-args').fill('');
  await approveWithTerminalCode(page, host, () => form.getByTestId('save-server').click());

  const server = page.getByTestId('registry-server').filter({ hasText: 'Sequential thinking' });
  await expect(server).toContainText('@modelcontextprotocol/server-sequential-thinking');
  await server.getByTestId('inspect-server-thinking').click();
  const tool = server.locator('[data-testid=registry-tool][data-tool=sequentialthinking]');
  await expect(tool).toBeVisible();
  await expect(tool).toHaveAttribute('data-source', 'shipped');
  await expect(tool).toContainText('Read');
  await shot(page, '71-sequential-thinking-inspected');
  // The refused URL never reached the host: only the sequential-thinking entry was stored.
  expect(readFileSync(join(dataDir, 'servers.json'), 'utf8')).not.toContain('hunter2-shop-secret');
});
