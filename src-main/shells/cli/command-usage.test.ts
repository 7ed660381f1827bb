import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ParseArgsConfig } from 'node:util';
import { cliWith } from '../../../test-support/cli-capture';
import { tempFolder } from '../../../test-support/temp-folder';

/**
 * Every flag a command accepts is in its help: each command is run once with a flag nobody has
 * (its parser then holds the options it accepts, recorded here) and once with --help, as a person
 * types them. A flag added to a parser and not to the help fails here.
 */

const parsed = vi.hoisted(() => ({ options: [] as Array<Record<string, unknown>> }));
vi.mock('node:util', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:util')>();
  return {
    ...real,
    parseArgs: (config: ParseArgsConfig) => {
      parsed.options.push({ ...(config.options ?? {}) });
      return real.parseArgs(config);
    },
  };
});

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});

/** The flags the command's parser accepts, as typed (`--data-dir`, `-o`). */
async function acceptedFlags(argv: string[]): Promise<string[]> {
  parsed.options = [];
  const dir = tempFolder('steward-usage-', cleanups);
  await cliWith([...argv, '--no-such-flag-here', '--data-dir', dir], { env: { STEWARD_DATA_DIR: dir } });
  const flags = new Set<string>();
  for (const options of parsed.options) {
    // --help is how the help itself is asked for.
    for (const [name, option] of Object.entries(options).filter(([name]) => name !== 'help')) {
      flags.add(`--${name}`);
      const short = (option as { short?: string }).short;
      if (short !== undefined) flags.add(`-${short}`);
    }
  }
  return [...flags].sort();
}

async function helpOf(argv: string[]): Promise<string> {
  const { code, stdout } = await cliWith(argv);
  expect(code).toBe(0);
  return stdout;
}

/** Each command as typed, and how a person asks for its help. */
const COMMANDS: Array<{ command: string[]; help: string[] }> = [
  { command: ['run', 'x.json'], help: ['run', '--help'] },
  { command: ['dry-run', 'x.json'], help: ['dry-run', '--help'] },
  { command: ['validate', 'x.json'], help: ['validate', '--help'] },
  { command: ['replay', 'RUN'], help: ['replay', '--help'] },
  { command: ['answer', 'RUN', 'approve'], help: ['answer', '--help'] },
  { command: ['workflows', 'list'], help: ['workflows', '--help'] },
  { command: ['workflows', 'import', 'x.json'], help: ['workflows', '--help'] },
  { command: ['workflows', 'export', 'x'], help: ['workflows', '--help'] },
  { command: ['workflows', 'delete', 'x'], help: ['workflows', '--help'] },
  { command: ['runs', 'list'], help: ['runs', '--help'] },
  { command: ['runs', 'search', 'words'], help: ['runs', '--help'] },
  { command: ['runs', 'show', 'RUN'], help: ['runs', '--help'] },
  { command: ['runs', 'delete', 'RUN'], help: ['runs', '--help'] },
  { command: ['runs', 'import', 'x.jsonl'], help: ['runs', '--help'] },
  { command: ['runs', 'waiting'], help: ['runs', '--help'] },
  { command: ['runs', 'export', 'RUN'], help: ['runs', '--help'] },
  { command: ['servers', 'list'], help: ['servers', '--help'] },
  { command: ['trial', 'x.json'], help: ['trial', '--help'] },
  { command: ['open', 'RUN'], help: ['open', '--help'] },
  { command: ['learning', 'export', 'x.jsonl'], help: ['learning', '--help'] },
  { command: ['trace', 'otlp', 'x.jsonl'], help: ['trace', '--help'] },
  { command: ['eval', 'boundary'], help: ['eval', '--help'] },
  { command: ['eval', 'verdicts', '--profile', 'x.json'], help: ['eval', 'verdicts', '--help'] },
  { command: ['mcp', 'status', 'x.json', 'srv'], help: ['--help'] },
];

describe('every command lists every flag it takes in its help', () => {
  it.each(COMMANDS)('steward $command.0 $command.1: its --help and steward --help name each of its flags', async ({ command, help }) => {
    const flags = await acceptedFlags(command);
    expect(flags.length, `steward ${command.join(' ')} parses no flags`).toBeGreaterThan(0);
    const own = await helpOf(help);
    const top = await helpOf(['--help']);
    const missing = (text: string) => flags.filter((f) => !new RegExp(`(^|[\\s\\[|(])${f.replace(/[-]/g, '\\-')}(?![\\w-])`).test(text));
    expect(missing(own), `missing from steward ${help.join(' ')}`).toEqual([]);
    expect(missing(top), 'missing from steward --help').toEqual([]);
  });
});

/** Every help a person can ask for, as they would type it. */
const HELPS = [
  ['--help'],
  ['run', '--help'],
  ['dry-run', '--help'],
  ['validate', '--help'],
  ['replay', '--help'],
  ['answer', '--help'],
  ['workflows', '--help'],
  ['runs', '--help'],
  ['runs', 'list', '--help'],
  ['learning', '--help'],
  ['trace', '--help'],
  ['eval', '--help'],
  ['eval', 'verdicts', '--help'],
  ['trial', '--help'],
  ['servers', '--help'],
  ['credentials', '--help'],
  ['mcp', '--help'],
  ['mcp', 'help'],
  ['open', '--help'],
];

/** A terminal's width the help is written for. */
const COLUMNS = 100;

describe('every help reads in a 100-column terminal', () => {
  it.each(HELPS.map((argv) => ({ typed: argv.join(' '), argv })))('steward $typed: exit 0, and no line wider than 100 columns', async ({ argv }) => {
    const text = await helpOf(argv);
    expect(text.trim().length).toBeGreaterThan(0);
    const wide = text.split('\n').filter((line) => [...line].length > COLUMNS);
    expect(wide, `lines of steward ${argv.join(' ')} wider than ${COLUMNS} columns`).toEqual([]);
  });
});
