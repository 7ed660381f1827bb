import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ensureBuilt } from '../test-support/ensure-built';
import { startFakeOllama, type FakeOllama } from '../test-support/fake-ollama';
import { connectHost, startHostProcess, waitFor, type HostProcess } from '../test-support/host-process';
import { twoAgentGraph } from '../test-support/two-agent-workflow';
import { shot } from './helpers';

// Issue 31, "Would this student have done well here?": a recorded history made by real runs of a
// two-agent workflow (replay scripts: the TEST DOUBLE at the model boundary; every round reviewed in
// phase 2), then "Try another student…" on the reader's promotion card. The candidate is a TEST
// DOUBLE too: a local server speaking the Ollama API, the host's Ollama. The trial finishes with its
// report beside the current student's figures; applying its suggestion makes a new deployment version.

const RUNS = 20;
let dataDir: string;
let host: HostProcess;
let page: Page;
let candidate: FakeOllama;

test.beforeAll(async ({ browser }) => {
  ensureBuilt();
  // The candidate answers as the recorded reader did: it agrees with every selected decision.
  candidate = await startFakeOllama({ models: [{ name: 'cand' }], chat: () => ({ message: { content: JSON.stringify({ decision_type: 'complete', output: 'read it' }) } }) });
  dataDir = mkdtempSync(join(tmpdir(), 'steward-e2e-trial-'));
  host = await startHostProcess(dataDir, { OLLAMA_HOST: candidate.url });
  page = await browser.newPage();
});

test.afterAll(async () => {
  await page?.close();
  await host?.stop();
  await candidate?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('a trial started from the promotion card finishes with its report; applying its suggestion makes a new deployment version', async () => {
  const api = await connectHost(host);
  await api.request('events.subscribe', {});
  await api.request('workflows.save', { workflow: twoAgentGraph('two-agents', 2) });
  for (let i = 0; i < RUNS; i += 1) {
    const { run_id } = (await api.request('workflows.run', { id: 'two-agents', inputs: { topic: `notes ${i}` } })) as { run_id: string };
    await waitFor(() => api.events.some((e) => e.type === 'run.finished' && e.run_id === run_id), 20_000, `run ${i + 1} to finish`);
  }

  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible({ timeout: 30_000 });
  await page.evaluate(() => (window.location.hash = '#/learning'));
  const reader = page.locator('[data-testid=promotion-card][data-workflow-id=two-agents][data-node=reader]');
  await expect(reader.getByTestId('metric-examples')).toHaveText(String(RUNS));

  await reader.getByTestId('trial-open').click();
  await reader.getByTestId('trial-model').fill('ollama:cand');
  await reader.getByTestId('trial-rounds').fill('200');
  await reader.getByTestId('trial-start').click();
  const report = reader.getByTestId('trial-report');
  await expect(report).toBeVisible({ timeout: 30_000 });
  await expect(report).toContainText(`Over the last ${RUNS} reviewed rounds of Reader (Two agents), ollama:cand agreed with the decision finally selected in ${RUNS} of ${RUNS} (100%; 95% interval 83.9%–100%)`);
  await expect(report.getByTestId('trial-agreement')).toContainText(`${RUNS}/${RUNS} · 100%`);
  await expect(report.getByTestId('trial-protected')).toHaveText('0');
  await expect(report.getByTestId('trial-phase')).toHaveText('3 · Risk-gated');
  await expect(report).toContainText('No tool was executed.');
  expect(candidate.chatRequests()).toHaveLength(RUNS);
  await shot(page, 'student-trial-report');
  await reader.screenshot({ path: 'e2e/artifacts/student-trial-card.png' });

  // The trial is a run of its own: its events are in the history, ending with the report.
  const runLink = report.getByTestId('trial-run-link');
  await expect(runLink).toHaveText('Trial of ollama:cand on Reader (Two agents)');
  const trialRun = (await runLink.getAttribute('href'))?.split('/')[2] ?? '';
  await waitFor(() => api.events.some((e) => e.type === 'run.finished' && e.run_id === trialRun), 10_000, 'the trial run to end');
  expect(api.events.filter((e) => e.run_id === trialRun && e.type === 'trial.round')).toHaveLength(RUNS);

  // The person applies it: the reader moves to phase 3 as a new version of its deployment profile.
  await expect(report.getByTestId('trial-apply')).toHaveText('Apply: move to phase 3');
  await report.getByTestId('trial-apply').click();
  await expect(reader.getByTestId('promotion-result')).toContainText('the Reader node of Two agents now runs in phase 3 (Risk-gated), saved as Two agents › Reader · deployment · v1');
  await expect(reader.getByTestId('promotion-phase')).toHaveText('Phase 3 · Risk-gated');
  const kept = (await api.request('profiles.list', {})) as { profiles: Array<{ profile: { id: string; kind: string; version: number; deployment?: { phase: number } } }> };
  expect(kept.profiles.filter((p) => p.profile.id === 'deployment-two-agents-reader').map((p) => [p.profile.version, p.profile.deployment?.phase])).toEqual([[1, 3]]);

  // The trial run is replayable from its run view: its recorded replies given back (no model call), the same report.
  await page.evaluate((id) => (window.location.hash = `#/runs/${id}/rounds`), trialRun);
  await expect(page.getByTestId('trial-run-report')).toContainText(`ollama:cand agreed with the decision finally selected in ${RUNS} of ${RUNS}`);
  await page.getByTestId('replay-button').click();
  await page.getByTestId('replay-submit').click();
  const same = page.getByTestId('trial-differences');
  await expect(same).toHaveAttribute('data-same', 'true', { timeout: 20_000 });
  await expect(same.getByTestId('trial-differences-headline')).toHaveText(`The replay made the same report: every one of the ${RUNS} rounds compared as recorded.`);
  expect(candidate.chatRequests()).toHaveLength(RUNS);
  await shot(page, 'student-trial-replay');
  api.close();
});
