import { expect, test } from '@playwright/test';
import { connectHost } from '../test-support/host-process';
import { twoAgentHistory } from '../test-support/two-agent-workflow';
import { shot } from './helpers';
import { ownHostAndPage } from './own-host';

// Issue 31's button on a profile: "Replay past verdicts" on a supervision profile asks the host to
// put its review rules to the recorded rounds (no model call, as `steward eval verdicts --profile`)
// and says the outcome in words: an empty history first, then an imported one (recorded rounds of a
// workflow whose models were replay scripts, the test double at the model boundary).

const own = ownHostAndPage('profile-replay');

test('a supervision profile replays the past verdicts: nothing recorded yet, then every reviewed round still reviewed', async () => {
  const { page, host } = own;
  await page.goto(host.url);
  await expect(page.getByTestId('connection-banner')).toHaveCount(0, { timeout: 20_000 });
  await page.evaluate(() => (window.location.hash = '#/settings'));
  const item = page.locator('[data-testid=profile-item][data-profile-id=fully-gated]');
  // Only supervision profiles have review rules to replay.
  await expect(page.locator('[data-testid=profile-kind][data-kind=teacher] [data-testid=profile-replay]')).toHaveCount(0);

  await item.getByTestId('profile-replay').click();
  await expect(item.getByTestId('profile-replay-headline')).toHaveText(/^No reviewed rounds in this history yet: a supervised run records one each time the teacher is asked\./, { timeout: 20_000 });

  const api = await connectHost(host);
  await api.request('runs.import', { import_id: 'replay-history', events: twoAgentHistory('two-agents', { runs: 1, roundsPerNode: 6, writerBlockEvery: 2 }) as never });
  await item.getByTestId('profile-replay').click();
  await expect(item.getByTestId('profile-replay-headline')).toHaveText('Under Fully gated v1, every one of the 12 reviewed rounds from 1 run would still go to the teacher.', { timeout: 20_000 });
  await expect(item.getByTestId('profile-replay-result')).toHaveAttribute('data-tone', 'ok');
  await shot(page, 'profile-replay');
  await item.getByTestId('profile-replay-close').click();
  await expect(item.getByTestId('profile-replay-result')).toHaveCount(0);
});
