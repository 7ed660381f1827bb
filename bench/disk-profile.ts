import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from '@playwright/test';

/**
 * Headless Chromium with a fresh profile on disk, as the app's browser has: IndexedDB on disk (an
 * incognito context keeps it in memory, which flattered a baseline's ratio once). `close` removes it.
 */
export async function launchDiskProfile(): Promise<{ browser: BrowserContext; close(): Promise<void> }> {
  const profileDir = mkdtempSync(join(tmpdir(), 'steward-bench-profile-'));
  const browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: process.env.STEWARD_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profileDir, { recursive: true, force: true });
    },
  };
}
