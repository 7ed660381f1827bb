import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';

const SERVER = fileURLToPath(new URL('../out/main/server.js', import.meta.url));

test('a one-time launch link opens the app once; opened again it says it was used and how to get a new one', async ({ browser }) => {
  ensureBuilt();
  const dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-launch-'));
  const child = spawn(process.execPath, [SERVER, '--port', '0', '--data-dir', dataDir, '--print-url-json'], { env: { ...process.env, CI: '1' }, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const first = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
    const { launch_url: launchUrl, token } = JSON.parse(first) as { launch_url: string; token: string };
    expect(launchUrl).not.toContain(token);

    const page = await (await browser.newContext()).newPage();
    await page.goto(launchUrl);
    await expect(page).toHaveURL(/#\/workflows$/); // the code left the address bar
    await expect(page.getByTestId('workflow-card').first()).toBeVisible();
    await expect(page.getByTestId('launch-refused')).toHaveCount(0);

    // Another browser profile (no stored token) with the same, now spent, link.
    const other = await (await browser.newContext()).newPage();
    await other.goto(launchUrl);
    await expect(other.getByTestId('launch-refused')).toContainText('already used');
    await expect(other.getByTestId('launch-refused')).toContainText('npm start');
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});
