import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, eventId } from '@shared/contracts/events';
import { MASK } from '@shared/util/mask';
import { STORED_TEXT_LIMIT_BYTES } from '@shared/util/trim-text';
import { EventJournal } from '../../events/event-journal';
import { cliWith } from '../../../test-support/cli-capture';
import { tempFolder } from '../../../test-support/temp-folder';

/** Issue 26: steward runs import refuses damaged input by its line, importing nothing (or trims and masks it as recorded). */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

const tempDir = () => tempFolder('steward-runs-damaged-', cleanups);
const cli = (argv: string[], dataDir: string) => cliWith([...argv, '--data-dir', dataDir]);

const TS = new Date(0).toISOString();
function run(runId: string, task = 'tidy', output = 'done'): RunEvent[] {
  return [
    RunEvent.parse({ type: 'run.started', id: eventId(runId, 0), run_id: runId, seq: 0, ts: TS, spec_id: 'cli', spec_name: 'CLI', task, supervision: { enabled: false }, models: { student: 's', teacher: 't' } }),
    RunEvent.parse({ type: 'run.notice', id: eventId(runId, 1), run_id: runId, seq: 1, ts: TS, message: 'step one' }),
    RunEvent.parse({ type: 'run.finished', id: eventId(runId, 2), run_id: runId, seq: 2, ts: TS, status: 'completed', rounds: 0, event_count: 3, output }),
  ];
}

function traceFile(lines: readonly unknown[], name = 'trace.jsonl'): string {
  const file = join(tempDir(), name);
  writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}

function stored(dataDir: string): RunEvent[] {
  const journal = EventJournal.open(join(dataDir, 'history.sqlite'), { log: () => undefined });
  const events = journal.read(0, 10_000).events;
  journal.close();
  return events;
}

/** A refusal: exit 2, the line named, nothing in the history. */
async function expectRefused(lines: readonly unknown[], name: string, message: RegExp) {
  const dataDir = tempDir();
  const result = await cli(['runs', 'import', traceFile(lines, name)], dataDir);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message);
  expect(result.stderr).toMatch(/; nothing was imported\n$/);
  expect(stored(dataDir)).toEqual([]);
}

describe('steward runs import of damaged input', () => {
  it('a line with a 20 MB value is refused by its number', async () => {
    const [start, step, end] = run('damaged-run-0001');
    const huge = JSON.stringify({ ...step, message: 'x'.repeat(20 * 1024 * 1024) });
    await expectRefused([start, huge, end], 'huge.jsonl', /^steward runs: huge\.jsonl, line 2: the line is 20\.0 MiB, and a trace line holds at most 4\.0 MiB/);
  });

  it('the same id twice with different content is refused, naming both lines', async () => {
    const events = run('damaged-run-0002');
    await expectRefused([...events, { ...events[1]!, message: 'step one, edited' }], 'twice.jsonl', /^steward runs: twice\.jsonl, line 4: event "damaged-run-0002:000001" is also on line 2, with different content/);
  });

  it('two different events at one place (run, seq) are refused, naming both lines', async () => {
    const events = run('damaged-run-0003');
    const other = { ...events[1]!, id: 'damaged-run-0003:other', message: 'another step' };
    await expectRefused([events[0]!, other, events[1]!, events[2]!], 'place.jsonl', /^steward runs: place\.jsonl, line 3: run "damaged-run-0003" has two different events at seq 1, this line \("run\.notice"\) and line 2/);
  });

  it('a raw API key is masked and never reaches the stored history; long model text is trimmed as recorded', async () => {
    const dataDir = tempDir();
    const key = `sk-proj-${'Q1w2E3r4T5'.repeat(4)}`;
    const events = run('damaged-run-0004', `deploy with ${key}`, 'o'.repeat(20_000));
    const result = await cli(['runs', 'import', traceFile([...events, events[1]])], dataDir);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    // Said, not hidden: the repeat taken once, the trimmed text and the masked key.
    expect(result.stdout).toBe(
      'imported 3 events of 1 run; 1 line repeating an earlier one, taken once; 1 event with model text over 16 KiB trimmed, as recorded runs are; 1 event holding what looks like an API key or token, masked\n',
    );
    const events2 = stored(dataDir);
    expect(JSON.stringify(events2)).not.toContain(key.slice(8));
    expect(events2[0]).toMatchObject({ task: `deploy with ${MASK}` });
    const end = events2.find((e) => e.type === 'run.finished');
    expect(end).toMatchObject({ trimmed: [{ path: 'output', original_bytes: 20_000 }] });
    expect(end?.type === 'run.finished' ? end.output?.length : 0).toBeLessThan(STORED_TEXT_LIMIT_BYTES + 100);
    // Nor anywhere in the history database's files (its search words included).
    for (const file of readdirSync(dataDir).filter((f) => f.startsWith('history'))) expect(readFileSync(join(dataDir, file)).includes(key.slice(8))).toBe(false);
  });

  it('an event that contradicts the history is refused by its line before anything is imported, and the history keeps its own', async () => {
    const dataDir = tempDir();
    const events = run('damaged-run-0005');
    expect((await cli(['runs', 'import', traceFile(events)], dataDir)).code).toBe(0);
    const edited = await cli(['runs', 'import', traceFile([...run('damaged-run-0006'), { ...events[1]!, message: 'edited' }])], dataDir);
    expect(edited.code).toBe(2);
    expect(edited.stderr).toMatch(/trace\.jsonl, line 4: the history holds a different event with the id "damaged-run-0005:000001".*Nothing was imported/);
    const held = stored(dataDir);
    expect(held.filter((e) => e.run_id === 'damaged-run-0006')).toEqual([]);
    expect(held.find((e) => e.id === events[1]!.id)).toMatchObject({ message: 'step one' });
  });
});
