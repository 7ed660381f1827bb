import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';
import { approveWithTerminalCode, shot } from './helpers';

// Issue 31: a person marks the shipped filesystem server trusted on the MCP registry screen. What
// trusted means for the untrusted-provenance review rule is said before anything changes; the host
// asks for the code it printed on its terminal; the change is kept and audited.

let host: HostProcess;
let dataDir: string;

test.beforeAll(async () => {
  ensureBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-trust-'));
  host = await startHostProcess(dataDir);
});

test.afterAll(async () => {
  await host?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('the registry marks a shipped server trusted, after saying what that means, with the terminal code; the audit log has it', async ({ page }) => {
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible({ timeout: 30_000 });
  await page.evaluate(() => (window.location.hash = '#/registry'));
  const card = page.locator('[data-testid=registry-server][data-server=filesystem]');
  await expect(card.getByTestId('server-trust')).toHaveAttribute('data-trust', 'untrusted');
  await card.getByTestId('server-trust-change').click();
  const explain = card.getByTestId('server-trust-explain');
  await expect(explain).toContainText('no longer sends that call to review, also at phase 4 (Autonomous)');
  await shot(page, 'server-trust-explain');
  await approveWithTerminalCode(page, host, () => card.getByTestId('server-trust-confirm').click());
  await expect(card.getByTestId('server-trust')).toHaveAttribute('data-trust', 'trusted');
  await expect(card.getByTestId('server-trust-change')).toHaveText('Mark untrusted…');
  await shot(page, 'server-trust-marked');
  const audit = readFileSync(join(dataDir, 'audit.jsonl'), 'utf8');
  expect(audit).toMatch(/"action":"servers\.trust","subject":"filesystem","detail":"untrusted → trusted","decided_by":"terminal_code","outcome":"approved"/);
  expect(JSON.parse(readFileSync(join(dataDir, 'server-trust.json'), 'utf8'))).toEqual({ servers: [{ id: 'filesystem', trust: 'trusted' }] });
});
