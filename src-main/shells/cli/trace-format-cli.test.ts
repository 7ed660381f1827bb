import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TRACE_ROUND_PATHS, traceLine } from '@shared/contracts/trace-format';
import { traceLineEvent } from '@shared/contracts/trace-line';
import type { RunEvent } from '@shared/contracts/events';
import { cliWith, journalEvents } from '../../../test-support/cli-capture';
import { readTraceFile } from '../../../test-support/trace-file';
import { tempNotesSpec } from '../../../test-support/workspace';
import { EXIT } from './cli';

/**
 * Issue 10, "one truth on every screen": a trace file numbers rounds from 1 (trace format 2), as the
 * CLI lines and the app do; traces written before (no trace_format, rounds from 0) still import,
 * export to OTLP and replay.
 */
const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'steward-trace-format-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function notesSpec(): { file: string; dir: string } {
  const s = tempNotesSpec();
  cleanups.push(s.cleanup);
  return s;
}

const cli = (argv: string[], dataDir: string) => cliWith([...argv, '--data-dir', dataDir]);

/** Every round a written line carries, at every place TRACE_ROUND_PATHS names. */
function roundsOf(line: Record<string, unknown>): number[] {
  const paths: readonly (readonly string[])[] = (TRACE_ROUND_PATHS as Record<string, readonly (readonly string[])[]>)[String(line.type)] ?? [];
  const at = (value: unknown, path: readonly string[]): number[] => {
    const [head, ...rest] = path;
    if (head === undefined) return typeof value === 'number' ? [value] : [];
    if (head === '*') return Array.isArray(value) ? value.flatMap((v) => at(v, rest)) : [];
    return typeof value === 'object' && value !== null ? at((value as Record<string, unknown>)[head], rest) : [];
  };
  return paths.flatMap((path) => at(line, path));
}

/** `steward.round` of every span and span event of an OTLP/JSON file. */
function otlpRounds(path: string): number[] {
  type Attr = { key: string; value: { intValue?: string | number } };
  type Span = { attributes?: Attr[]; events?: Array<{ attributes?: Attr[] }> };
  const request = JSON.parse(readFileSync(path, 'utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Span[] }> }> };
  const attrs = request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.flatMap((sp) => [...(sp.attributes ?? []), ...(sp.events ?? []).flatMap((e) => e.attributes ?? [])])));
  return [...new Set(attrs.filter((a) => a.key === 'steward.round').map((a) => Number(a.value.intValue)))].sort((a, b) => a - b);
}

/** The old learning fixture: a trace written before trace_format, rounds as indexes from 0. */
const FORMAT_1 = join(import.meta.dirname, '../../learning/fixtures/copied-context-phase1.trace.jsonl');

describe('trace files number rounds from 1', () => {
  it('steward run --trace writes trace format 2: every round in it is the number the CLI printed, none is 0', async () => {
    const s = notesSpec();
    const trace = join(s.dir, 'run.jsonl');
    const run = await cli(['run', s.file, '--trace', trace], join(s.dir, 'data'));
    expect(run.code).toBe(EXIT.ok);
    const printed = [...run.stdout.matchAll(/^ {2}round (\d+) /gm)].map((m) => Number(m[1]));
    expect(printed).toEqual([1, 2, 3, 4]);

    const lines = readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.every((l) => l.trace_format === 2)).toBe(true);
    const rounds = lines.flatMap(roundsOf);
    expect(rounds.length).toBeGreaterThan(20);
    expect(Math.min(...rounds)).toBe(1);
    expect(lines.filter((l) => l.type === 'round.completed').map((l) => l.round)).toEqual(printed);
    expect(lines.filter((l) => l.type === 'round.started').map((l) => l.round)).toEqual(printed);
    // Read back, the rounds are indexes again: what the journal, checkpoints and replay keep.
    expect(readTraceFile(trace).flatMap((e) => (e.type === 'round.completed' ? [e.round] : []))).toEqual([0, 1, 2, 3]);
  }, 60_000);

  it('steward run --json numbers rounds from 1 too: rounds[].round and history[].round are the rounds its lines name', async () => {
    const s = notesSpec();
    const dataDir = join(s.dir, 'data');
    const lines = await cli(['run', s.file], dataDir);
    const printed = [...lines.stdout.matchAll(/^ {2}round (\d+) /gm)].map((m) => Number(m[1]));
    const json = await cli(['run', s.file, '--json'], dataDir);
    expect(json.code, json.stderr).toBe(EXIT.ok);
    const result = JSON.parse(json.stdout) as { rounds: Array<{ round: number; outcome: string }>; history: Array<{ round: number }> };
    expect(result.rounds.map((r) => r.round)).toEqual(printed);
    expect(Math.min(...result.history.map((h) => h.round))).toBeGreaterThanOrEqual(1);
    expect(result.history.every((h) => printed.includes(h.round))).toBe(true);
  }, 60_000);

  it('a trace written before trace_format (rounds from 0) imports as the same events as its format-2 rewrite, and exports to OTLP with steward.round from 1', async () => {
    const dir = tempDir();
    const old = readFileSync(FORMAT_1, 'utf8');
    expect(old).not.toContain('trace_format');
    const events = old
      .trim()
      .split('\n')
      .map((l) => traceLineEvent(l))
      .flatMap((r) => (r.ok ? [r.event] : []));
    expect(events).toHaveLength(74);
    expect(events.flatMap((e) => (e.type === 'round.completed' ? [e.round] : []))).toEqual([0, 1, 2, 3, 4, 5]);

    const oldData = join(dir, 'old-data');
    mkdirSync(oldData);
    expect((await cli(['runs', 'import', FORMAT_1], oldData)).stdout).toMatch(/imported 74 events of 1 run/);
    const imported: RunEvent[] = journalEvents(oldData);
    expect(imported).toEqual(events);
    const rewrite = join(dir, 'format2.jsonl');
    writeFileSync(rewrite, events.map((e) => `${traceLine(e)}\n`).join(''));
    expect(readTraceFile(rewrite)).toEqual(events);
    const newData = join(dir, 'new-data');
    mkdirSync(newData);
    expect((await cli(['runs', 'import', rewrite], newData)).stdout).toMatch(/imported 74 events of 1 run/);
    expect(journalEvents(newData)).toEqual(imported);

    const otlp = join(dir, 'old.otlp.json');
    expect((await cli(['trace', 'otlp', FORMAT_1, '-o', otlp], oldData)).code).toBe(EXIT.ok);
    expect(otlpRounds(otlp)).toEqual([1, 2, 3, 4, 5, 6]);
  }, 60_000);

  it('a run traced in format 2 and the same run in format 1 replay alike: the same rounds, no differences', async () => {
    const s = notesSpec();
    const dataDir = join(s.dir, 'data');
    const trace = join(s.dir, 'run.jsonl');
    expect((await cli(['run', s.file, '--trace', trace], dataDir)).code).toBe(EXIT.ok);
    // Format 1 is what the writer wrote before: each event as it is kept, rounds from 0.
    const format1 = join(s.dir, 'run.format1.jsonl');
    writeFileSync(format1, readTraceFile(trace).map((e) => `${JSON.stringify(e)}\n`).join(''));
    for (const file of [trace, format1]) {
      const replay = await cli(['replay', file, '--spec', s.file], dataDir);
      expect(replay.code, replay.stderr).toBe(EXIT.ok);
      expect(replay.stdout).toMatch(/round 2 +student → read_text_file/);
      expect(replay.stdout).toContain('differences from the recorded run: none (4 rounds, the same decisions)');
    }
  }, 90_000);
});
