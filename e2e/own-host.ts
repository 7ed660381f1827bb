import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startHostProcess, type HostProcess } from '../test-support/host-process';

/**
 * A spec's own built host (its own data folder and port, so specs run side by side) and one page,
 * started before its tests and removed after them. Read `host` and `page` inside a test.
 */
export function ownHostAndPage(prefix: string): { readonly host: HostProcess; readonly page: Page; readonly dataDir: string } {
  const held: { host?: HostProcess; page?: Page; dataDir?: string } = {};
  test.beforeAll(async ({ browser }) => {
    ensureBuilt();
    held.dataDir = mkdtempSync(join(tmpdir(), `steward-e2e-${prefix}-`));
    held.host = await startHostProcess(held.dataDir);
    held.page = await browser.newPage();
  });
  test.afterAll(async () => {
    await held.page?.close();
    await held.host?.stop();
    if (held.dataDir) rmSync(held.dataDir, { recursive: true, force: true });
  });
  return {
    get host() {
      if (!held.host) throw new Error('the host starts in beforeAll');
      return held.host;
    },
    get page() {
      if (!held.page) throw new Error('the page opens in beforeAll');
      return held.page;
    },
    get dataDir() {
      if (!held.dataDir) throw new Error('the data folder is made in beforeAll');
      return held.dataDir;
    },
  };
}
