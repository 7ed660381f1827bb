import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ownHostAndPage } from './own-host';
import { runIdFromUrl, shot, storedEvents } from './helpers';

// Issue 29, seed 000: a rejected or replaced candidate never reaches TTS. The page's Web Speech API
// is replaced by a recorder (every speechSynthesis.speak and cancel call, and a voice list); the
// models are replay scripts (the test double at the model boundary); host, MCP server and page are
// real. The Synthesis group is set in the panel, and two runs are watched: the demo's (its answer
// spoken at the rate saved), and a workflow whose teacher replaces the student's final answer.

const held = ownHostAndPage('speech');

const REJECTED = 'STUDENT ANSWER the teacher replaced';
const FINAL = 'The teacher’s answer: the release slips one week.';
const DEMO_ANSWER = 'Wrote summary.md: the release slips a week, and five action items have owners (Bo, Chen, Dara, Ana).';

const WORKFLOW = {
  format: 'steward/v1',
  kind: 'workflow',
  id: 'spoken-answer',
  name: 'Spoken answer',
  description: 'An agent whose answer is spoken; its teacher replaces the student’s.',
  nodes: [
    { id: 'in', kind: 'input', fields: [{ name: 'question', type: 'text' }], position: { x: 0, y: 60 } },
    {
      id: 'answerer',
      kind: 'agent',
      instructions: 'Answer the question.',
      task: 'Answer: {{question}}',
      inputs: [{ name: 'question', type: 'text' }],
      supervision: { enabled: true, phase: 2 },
      synthesis: { enabled: true, speak: ['complete'] },
      script: {
        student: [{ json: { decision_type: 'complete', output: REJECTED } }],
        teacher: [{ json: { verdict: 'replace', reason_codes: ['hallucination'], explanation: 'Not what the notes say.', replacement: { decision_type: 'complete', output: FINAL } } }],
      },
      position: { x: 260, y: 60 },
    },
    { id: 'out', kind: 'output', fields: [{ name: 'answer', type: 'text', required: true }], position: { x: 560, y: 60 } },
  ],
  edges: [
    { from: { node: 'in', port: 'question' }, to: { node: 'answerer', port: 'question' } },
    { from: { node: 'answerer', port: 'output' }, to: { node: 'out', port: 'answer' } },
  ],
};

interface Spoken {
  text: string;
  rate: number;
}
const spoken = (page: Page) => page.evaluate(() => (window as unknown as { __spoken: Spoken[] }).__spoken);
const cancels = (page: Page) => page.evaluate(() => (window as unknown as { __cancels: number }).__cancels);

/** Every speechSynthesis.speak and cancel call recorded, and one voice offered (installed once per page). */
let recording = false;
async function recordSpeech(page: Page): Promise<void> {
  if (recording) return;
  recording = true;
  await page.addInitScript(() => {
    const w = window as unknown as { __spoken: { text: string; rate: number }[]; __cancels: number };
    w.__spoken = [];
    w.__cancels = 0;
    const synth = window.speechSynthesis;
    const own = (name: string, value: unknown) => Object.defineProperty(synth, name, { value, configurable: true });
    own('speak', (u: SpeechSynthesisUtterance) => w.__spoken.push({ text: u.text, rate: u.rate }));
    own('cancel', () => (w.__cancels += 1));
    own('getVoices', () => [{ name: 'Steward Test Voice', lang: 'en-GB', default: true, localService: true, voiceURI: 'steward-test' }]);
  });
}

async function importWorkflow(page: Page, workflow: { id: string; [key: string]: unknown }): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'steward-e2e-speech-file-'));
  try {
    const file = join(dir, `${workflow.id}.workflow.json`);
    writeFileSync(file, JSON.stringify(workflow));
    await page.evaluate(() => (window.location.hash = '#/workflows'));
    await page.getByTestId('import-workflow-file').setInputFiles(file);
    await expect(page.getByTestId(`open-workflow-${workflow.id}`)).toBeVisible();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('speech: set in the Synthesis group, only delivered answers are spoken — never the replaced candidate — once, and Stop speaking cancels', async () => {
  const { page, host } = held;
  await recordSpeech(page);
  await page.setViewportSize({ width: 1360, height: 900 });
  await page.goto(host.url);
  const card = page.getByTestId('workflow-card').filter({ hasText: 'Notes assistant' });
  await expect(card).toBeVisible({ timeout: 30_000 });

  // The Synthesis group: off by default; the browser's voices listed; a rate out of range refused in words.
  await card.getByTestId('configure-button').click();
  const group = page.getByTestId('supervision-panel').getByTestId('group-synthesis');
  await expect(group).toContainText('speech off');
  await group.getByRole('button', { name: /Synthesis/ }).click();
  await group.getByTestId('synthesis-enabled').check();
  await expect(group.getByTestId('synthesis-voice').locator('option')).toHaveText(['Default voice', 'Steward Test Voice (en-GB) · default']);
  await group.getByTestId('synthesis-voice').selectOption('Steward Test Voice');
  await group.getByTestId('synthesis-rate').fill('5');
  await expect(group.locator('#cfg-synthesis-rate-issue')).toHaveText('The speech rate is a number from 0.5 to 2 (1 is normal speed).');
  await expect(group.getByTestId('synthesis-save')).toBeDisabled();
  await group.getByTestId('synthesis-rate').fill('1.25');
  await group.getByTestId('synthesis-speak-present_result').uncheck();
  await group.getByTestId('synthesis-save').click();
  await expect(group.getByTestId('synthesis-result')).toContainText('the next run speaks its delivered responses');
  await expect(group).toContainText('speech on · 1.25× · Steward Test Voice · questions to you, the final answer');
  await shot(page, 'synthesis-group', false);

  // The demo's run, watched: its final answer is spoken at the saved rate, and nothing else.
  await page.evaluate(() => (window.location.hash = '#/workflows'));
  await card.getByTestId('run-button').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect.poll(() => spoken(page)).toEqual([{ text: DEMO_ANSWER, rate: 1.25 }]);

  // A workflow whose teacher replaces the student's final answer.
  await importWorkflow(page, WORKFLOW);
  await page.getByTestId('open-workflow-spoken-answer').click();
  await page.getByTestId('run-workflow').click();
  await page.getByTestId('run-input-question').fill('When does the release ship?');
  await page.getByTestId('run-start').click();
  await page.getByTestId('open-run').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect(page.getByTestId('run-final')).toContainText(FINAL);
  await expect.poll(() => spoken(page)).toEqual([
    { text: DEMO_ANSWER, rate: 1.25 },
    { text: FINAL, rate: 1 },
  ]);
  // The replaced candidate exists (the run's trace keeps it, with the teacher's verdict), and was never spoken.
  const events = await storedEvents(page, runIdFromUrl(page.url()));
  expect(events.filter((e) => e.type === 'candidate.proposed').map((e) => JSON.stringify(e))).toEqual([expect.stringContaining(REJECTED)]);
  expect(events.find((e) => e.type === 'verdict.received')).toMatchObject({ attempt: { verdict: { verdict: 'replace' } } });
  expect((await spoken(page)).map((s) => s.text).join('\n')).not.toContain(REJECTED);

  // Stop speaking cancels what is being said.
  const control = page.getByTestId('run-speech');
  await expect(control).toContainText('Read out 1 delivered response of this run');
  await shot(page, 'run-speech-control', false);
  await control.getByTestId('speech-stop').click();
  await expect(control).toContainText('Speech stopped for this run');
  expect(await cancels(page)).toBeGreaterThan(0);

  // A reload replays the run's history: nothing is spoken again.
  await page.reload();
  await expect(page.getByTestId('run-speech-text')).toHaveText('Speech is on for this agent; responses delivered before you opened the run are not read out again.');
  expect(await spoken(page)).toEqual([]);
});

const GRAPH_ANSWER = 'Spoken from the graph: the release ships on Friday.';

test('speech set on a workflow’s agent node in the graph inspector: refused out of range in words, saved with the workflow, and the run’s delivered answer is spoken with it', async () => {
  const { page, host } = held;
  await recordSpeech(page);
  await page.setViewportSize({ width: 1360, height: 900 });
  await page.goto(host.url);
  await expect(page.getByTestId('workflow-card').first()).toBeVisible({ timeout: 30_000 });
  // The same workflow with speech off on its agent (no synthesis entry), its student's answer accepted.
  const { synthesis: _off, ...answerer } = WORKFLOW.nodes[1] as (typeof WORKFLOW.nodes)[1] & { synthesis?: unknown };
  await importWorkflow(page, {
    ...WORKFLOW,
    id: 'spoken-from-graph',
    name: 'Spoken from the graph',
    nodes: WORKFLOW.nodes.map((n) =>
      n.id === 'answerer' ? { ...answerer, script: { student: [{ json: { decision_type: 'complete', output: GRAPH_ANSWER } }], teacher: [{ json: { verdict: 'accept', reason_codes: [], explanation: 'Right.' } }] } } : n,
    ),
  });
  await page.getByTestId('open-workflow-spoken-from-graph').click();
  await page.getByTestId('node-answerer').click();
  const synthesis = page.getByTestId('inspector').getByTestId('inspector-synthesis');
  await expect(synthesis.getByTestId('inspector-synthesis-summary')).toContainText('Speech off');
  await expect(synthesis.getByTestId('inspector-synthesis-voice')).toBeDisabled();
  // By keyboard: Space turns speech on.
  await synthesis.getByTestId('inspector-synthesis-enabled').focus();
  await page.keyboard.press('Space');
  await expect(synthesis.getByTestId('inspector-synthesis-enabled')).toBeChecked();
  await expect(synthesis.getByTestId('inspector-synthesis-voice').locator('option')).toHaveText(['Default voice', 'Steward Test Voice (en-GB) · default']);
  await synthesis.getByTestId('inspector-synthesis-voice').selectOption('Steward Test Voice');
  const rate = synthesis.getByTestId('inspector-synthesis-rate');
  await rate.fill('3');
  await expect(rate).toHaveAttribute('aria-invalid', 'true');
  await expect(rate).toHaveAccessibleDescription('The speech rate is a number from 0.5 to 2 (1 is normal speed).');
  await rate.fill('1.5');
  await expect(rate).not.toHaveAttribute('aria-invalid');
  await synthesis.getByTestId('inspector-synthesis-speak-ask_user').uncheck();
  await expect(synthesis.getByTestId('inspector-synthesis-summary')).toContainText('Speech on · 1.5× · Steward Test Voice · presented results, the final answer');
  await synthesis.scrollIntoViewIfNeeded();
  await shot(page, 'inspector-synthesis', false);
  await page.getByTestId('inspector').getByTestId('inspector-runtime').scrollIntoViewIfNeeded();
  await shot(page, 'inspector-runtime-reply-bound', false);
  await page.keyboard.press('Control+s');
  await expect(page.getByTestId('saved-indicator')).toBeVisible();

  await page.getByTestId('run-workflow').click();
  await page.getByTestId('run-input-question').fill('When does the release ship?');
  await page.getByTestId('run-start').click();
  await page.getByTestId('open-run').click();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect.poll(() => spoken(page)).toEqual([{ text: GRAPH_ANSWER, rate: 1.5 }]);
  // The run recorded the node's speech on its start, as saved in the graph.
  const events = await storedEvents(page, runIdFromUrl(page.url()));
  expect(events.find((e) => e.type === 'agent.started')).toMatchObject({ synthesis: { enabled: true, voice: 'Steward Test Voice', rate: 1.5, speak: ['present_result', 'complete'] } });
});

