import { expect, test } from '@playwright/test';
import { eventId, type RunEvent } from '../src-shared/contracts/events';
import { connectHost, waitFor } from '../test-support/host-process';
import { twoAgentGraph, twoAgentHistory } from '../test-support/two-agent-workflow';
import { shot } from './helpers';
import { ownHostAndPage } from './own-host';

// Issue 29: promotion is earned per agent node. A workflow graph with two agent nodes, a recorded
// history (imported) in which the reader's student is always accepted and the writer's often
// blocked: two cards, two suggestions. "Apply" moves that node only, as a new version of its own
// deployment profile, which the next run records. The models are replay scripts (the test double
// at the model boundary).

const own = ownHostAndPage('promotion-node');

type AgentStarted = Extract<RunEvent, { type: 'agent.started' }>;

test('a workflow with two agent nodes gets a promotion card per node; Apply moves that node’s deployment profile to a new version its next run records', async () => {
  const { page, host } = own;
  const api = await connectHost(host);
  await api.request('events.subscribe', {});
  await api.request('workflows.save', { workflow: twoAgentGraph('two-agents', 2) });
  await api.request('runs.import', { import_id: 'two-agents-history', events: twoAgentHistory('two-agents', { runs: 1, roundsPerNode: 24, writerBlockEvery: 2 }) as never });

  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible({ timeout: 30_000 });
  await page.evaluate(() => (window.location.hash = '#/learning'));
  const reader = page.locator('[data-testid=promotion-card][data-workflow-id=two-agents][data-node=reader]');
  const writer = page.locator('[data-testid=promotion-card][data-workflow-id=two-agents][data-node=writer]');
  await expect(reader).toContainText('Two agents › Reader (agent node)');
  await expect(writer).toContainText('Two agents › Writer (agent node)');
  // Each node's own figures: the reader always agreed; the writer was blocked on half its (protected) writes.
  await expect(reader.getByTestId('metric-examples')).toHaveText('24');
  await expect(reader.getByTestId('metric-agreement')).toHaveText('100%');
  await expect(reader.getByTestId('metric-errors')).toHaveText('0');
  await expect(writer.getByTestId('metric-block')).toHaveText('50%');
  await expect(writer.getByTestId('metric-errors')).toHaveText('12');
  await expect(reader.getByTestId('promotion-phase')).toHaveText('Phase 2 · Student fully gated');
  await expect(reader.getByTestId('promotion-suggestion')).toHaveAttribute('data-action', 'promote');
  await expect(writer.getByTestId('promotion-suggestion')).toHaveAttribute('data-action', 'demote');
  await expect(writer.getByTestId('promotion-apply')).toHaveText('Apply: move to phase 1');
  await shot(page, 'promotion-per-node');

  // The person applies the reader's promotion: only the reader moves, as its own profile's version.
  await reader.getByTestId('promotion-apply').click();
  await expect(reader.getByTestId('promotion-result')).toContainText('the Reader node of Two agents now runs in phase 3 (Risk-gated), saved as Two agents › Reader · deployment · v1');
  await expect(reader.getByTestId('promotion-phase')).toHaveText('Phase 3 · Risk-gated');
  await expect(reader.getByTestId('promotion-profile')).toContainText('Two agents › Reader · deployment · v1');
  await expect(writer.getByTestId('promotion-phase')).toHaveText('Phase 2 · Student fully gated');
  // Applied again (the figures still earn it): a new version, the first kept as it was.
  await expect(reader.getByTestId('promotion-apply')).toHaveText('Apply: move to phase 4');
  await reader.getByTestId('promotion-apply').click();
  await expect(reader.getByTestId('promotion-profile')).toContainText('· v2');
  await shot(page, 'promotion-per-node-applied');

  // The next run: the reader in phase 4 with its profile's version recorded; the writer as its file says.
  const { run_id } = (await api.request('workflows.run', { id: 'two-agents', inputs: { topic: 'notes' } })) as { run_id: string };
  await waitFor(() => api.events.some((e) => e.type === 'run.finished' && e.run_id === run_id), 20_000, 'the run to finish');
  const starts = api.events.filter((e): e is AgentStarted => e.type === 'agent.started' && e.run_id === run_id);
  const readerStart = starts.find((e) => e.invocation_id === 'reader');
  const writerStart = starts.find((e) => e.invocation_id === 'writer');
  expect(readerStart?.supervision.phase).toBe(4);
  expect(readerStart?.profiles.deployment).toMatchObject({ id: 'deployment-two-agents-reader', version: 2 });
  expect(writerStart?.supervision.phase).toBe(2);
  expect(writerStart?.profiles.deployment).toBeUndefined();

  // The figures are the host's (issue 26): a run that arrives while the page is open counts at once, a deleted one stops counting.
  await expect(reader.getByTestId('metric-examples')).toHaveText('24');
  const later = 'two-agents-later-000';
  const more = twoAgentHistory('two-agents', { runs: 1, roundsPerNode: 24, writerBlockEvery: 2, start: Date.UTC(2026, 10, 2) }).map((e) => ({ ...e, run_id: later, id: eventId(later, e.seq) }));
  await api.request('runs.import', { import_id: 'two-agents-later', events: more as never });
  await expect(reader.getByTestId('metric-examples')).toHaveText('48');
  await expect(writer.getByTestId('metric-errors')).toHaveText('24');
  await api.request('runs.delete', { run_ids: [later] });
  await expect(reader.getByTestId('metric-examples')).toHaveText('24');
  await expect(writer.getByTestId('metric-errors')).toHaveText('12');
  api.close();
});
