import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import { agentRunPrinter } from '../src-main/shells/cli/agent-run-output';
import { runSpans } from '../src-main/otlp/trace-to-spans';
import { deriveRounds } from '../src-renderer/db/derive-rounds';
import { RoundCard } from '../src-renderer/screens/RoundCard';
import { buildTraceTree, type TraceNode } from '../src-renderer/screens/trace/trace-tree';
import { blockedRound, eventLog, finishRun, invalidCandidateRound, readExecutedRound, startRun, writeReplacedRound } from '../src-renderer/testing/event-fixtures';
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
    // The trace file says the number itself (trace format 2), for people and other tools that read it.
    const traced = run.jsonl
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as RunEvent)
      .filter((e): e is RunEventOf<'round.completed'> => e.type === 'round.completed');
    const fromTrace = traced.map((e) => e.round);
    expect(traced.map((e) => e.record.round)).toEqual(fromTrace);
    const views = deriveRounds(run.events);
    const cards = views.map((view) => /<h3 class="round__title">Round (\d+)<\/h3>/.exec(renderToStaticMarkup(createElement(RoundCard, { view })))?.[1]);
    const spanRounds = [...new Set(runSpans(run.events).flatMap((s) => (typeof s.attributes['steward.round'] === 'number' ? [s.attributes['steward.round']] : [])))].sort((a, b) => a - b);

    expect(fromTrace).toEqual([1, 2, 3]);
    expect(cliRoundNumbers(run.events)).toEqual(fromTrace);
    expect(views.map((v) => v.number)).toEqual(fromTrace);
    expect(cards.map(Number)).toEqual(fromTrace);
    expect(spanRounds).toEqual(fromTrace);
  });

  const ROUNDS = [readExecutedRound, writeReplacedRound, blockedRound, invalidCandidateRound] as const;
  const roundSpanNumbers = (nodes: readonly TraceNode[]): number[] =>
    nodes.flatMap((n) => (n.kind !== 'span' ? [] : [...(n.layer === 'round' ? [Number(/^Round (\d+)$/.exec(n.label)?.[1])] : []), ...roundSpanNumbers(n.children)]));

  it('for any run of rounds, the CLI, the view model, the Trace tab and OTLP number its k-th round k (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: ROUNDS.length - 1 }), { minLength: 1, maxLength: 12 }), (kinds) => {
        const log = eventLog('round-number-prop-01');
        startRun(log, { supervision: true });
        kinds.forEach((k, i) => ROUNDS[k]!(log, i));
        finishRun(log, 'completed', kinds.length);
        const expected = kinds.map((_, i) => i + 1);
        expect(cliRoundNumbers(log.events)).toEqual(expected);
        expect(deriveRounds(log.events).map((v) => v.number)).toEqual(expected);
        expect(roundSpanNumbers(buildTraceTree(log.events).children)).toEqual(expected);
        const otlp = new Set(runSpans(log.events).flatMap((sp) => (typeof sp.attributes['steward.round'] === 'number' ? [sp.attributes['steward.round']] : [])));
        expect(otlp.size).toBeGreaterThan(0);
        for (const n of otlp) expect(expected).toContain(n);
      }),
      { numRuns: 60 },
    );
  });

  it('no screen numbers a round by itself: every shown "round N" goes through roundNumber', () => {
    const sources = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
        d.isDirectory() ? sources(join(dir, d.name)) : /\.tsx?$/.test(d.name) && !/\.test\.tsx?$/.test(d.name) ? [join(dir, d.name)] : [],
      );
    // "round ${x.round + 1}", "Round {x.round + 1}": a number shown next to the word round, computed in place.
    const inPlace = /round\s*\$?\{[^}]*round\s*\+\s*1\s*\}/i;
    const files = ['src-main', 'src-shared', 'src-renderer'].flatMap((root) => sources(fileURLToPath(new URL(`../${root}`, import.meta.url))));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (inPlace.test(line) ? [`${file}:${i + 1}`] : [])),
    );
    expect(offenders).toEqual([]);
  });
});
