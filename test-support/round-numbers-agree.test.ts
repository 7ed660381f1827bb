import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import { roundNumber } from '@shared/contracts/round-number';
import { agentRunPrinter } from '../src-main/shells/cli/agent-run-output';
import { runSpans } from '../src-main/otlp/trace-to-spans';
import { deriveRounds } from '../src-renderer/db/derive-rounds';
import { RoundCard } from '../src-renderer/screens/RoundCard';
import { recordLearningRun, type LearningRun } from './learning-run';

// A real run (scripted student and teacher on the real filesystem MCP server), read by every surface.
let run: LearningRun;
beforeAll(async () => {
  run = await recordLearningRun(3, 2);
}, 60_000);

function cliRoundNumbers(events: readonly RunEvent[]): number[] {
  let out = '';
  const printer = agentRunPrinter({ stdout: (text: string) => void (out += text) }, false);
  for (const e of events) printer.onEvent(e);
  return [...out.matchAll(/^ {2}round (\d+) /gm)].map((m) => Number(m[1]));
}

describe('one round number on every screen', () => {
  it('the CLI line, the trace JSON event, the app view model, its round card and the OTLP spans say the same number for each round, from 1', () => {
    const traced = run.jsonl
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as RunEvent)
      .filter((e): e is RunEventOf<'round.completed'> => e.type === 'round.completed');
    const fromTrace = traced.map((e) => roundNumber(e.round));
    const views = deriveRounds(run.events);
    const cards = views.map((view) => /<h3 class="round__title">Round (\d+)<\/h3>/.exec(renderToStaticMarkup(createElement(RoundCard, { view })))?.[1]);
    const spanRounds = [...new Set(runSpans(run.events).flatMap((s) => (typeof s.attributes['steward.round'] === 'number' ? [s.attributes['steward.round']] : [])))].sort((a, b) => a - b);

    expect(fromTrace).toEqual([1, 2, 3]);
    expect(cliRoundNumbers(run.events)).toEqual(fromTrace);
    expect(views.map((v) => v.number)).toEqual(fromTrace);
    expect(cards.map(Number)).toEqual(fromTrace);
    expect(spanRounds).toEqual(fromTrace);
  });
});
