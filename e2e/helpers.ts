import { mkdirSync } from 'node:fs';
import { expect, type Page } from '@playwright/test';
import type { RunEvent } from '../src-shared/contracts/events';

export const ARTIFACTS = 'e2e/artifacts';
mkdirSync(ARTIFACTS, { recursive: true });

export async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage });
}

/** Every stored event of a run, read straight from the page's IndexedDB (not through the app). */
export async function storedEvents(page: Page, runId: string): Promise<RunEvent[]> {
  return page.evaluate(
    (id) =>
      new Promise<RunEvent[]>((resolve, reject) => {
        const open = indexedDB.open('steward');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const all = db.transaction('events', 'readonly').objectStore('events').getAll();
          all.onerror = () => reject(all.error);
          all.onsuccess = () => {
            resolve((all.result as RunEvent[]).filter((e) => e.run_id === id));
            db.close();
          };
        };
      }),
    runId,
  );
}

/** Everything the page keeps, as text: every IndexedDB store, session and local storage (where a planted secret must not be). */
export async function pageStorage(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const dump: unknown[] = [];
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open('steward');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    for (const store of Array.from(db.objectStoreNames)) {
      dump.push(await new Promise((resolve) => {
        const all = db.transaction(store, 'readonly').objectStore(store).getAll();
        all.onsuccess = () => resolve(all.result);
      }));
    }
    db.close();
    return JSON.stringify(dump) + JSON.stringify(sessionStorage) + JSON.stringify(localStorage);
  });
}

export function runIdFromUrl(url: string): string {
  const match = /#\/runs\/([^/?#]+)/.exec(url);
  if (!match?.[1]) throw new Error(`not a run URL: ${url}`);
  return match[1];
}

/**
 * The one-time code the host printed on its terminal for the latest explicit action, read as the
 * person at that terminal would. Waits for it to appear after `after` characters of output.
 */
export async function terminalCode(stderr: () => string, after: number, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const codes = [...stderr().slice(after).matchAll(/type this code in the page: (\d{3}-\d{3})/g)];
    const code = codes.at(-1)?.[1];
    if (code) return code;
    if (Date.now() > deadline) throw new Error('the host printed no confirmation code');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A change the host asks a person to approve with the code it prints on its terminal: `ask` makes
 * the request (a Save click), then the code is read off the terminal, typed and approved, as the
 * person at that terminal would. `check` looks at the confirmation panel before the code is typed.
 */
export async function approveWithTerminalCode(page: Page, host: { stderr?: () => string }, ask: () => Promise<void>, check?: (panel: ReturnType<Page['getByTestId']>) => Promise<void>): Promise<void> {
  const printed = host.stderr?.().length ?? 0;
  await ask();
  const panel = page.getByTestId('confirm-code-panel');
  await expect(panel).toBeVisible();
  await check?.(panel);
  await panel.getByTestId('confirm-code').fill(await terminalCode(() => host.stderr?.() ?? '', printed));
  await panel.getByTestId('confirm-approve').click();
}

/** A restarted host's page opened on Waiting for you, once it lists the one question a run left there: its row. */
export async function theOneWaitingRow(page: Page, url: string) {
  await page.goto(url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible({ timeout: 30_000 });
  await page.evaluate(() => (window.location.hash = '#/interventions'));
  const rows = page.getByTestId('intervention-row');
  await expect(rows).toHaveCount(1, { timeout: 30_000 });
  return rows.first();
}
