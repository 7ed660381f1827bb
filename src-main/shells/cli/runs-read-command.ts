import { parseArgs } from 'node:util';
import { RUN_STATUSES, RunStatus } from '@shared/contracts/events';
import type { RunsPage, RunsQuery } from '../../events/history-queries';
import { runNamedBy } from '../../events/run-named-by';
import type { CliIo, EXIT } from './cli-io';
import { localTime, MAX_PAGE, pageFooter, pageJson, shownJson, shownLines } from './format-history';
import { nestedRunLines } from './nested-run-lines';
import { historyToRead } from './history-to-read';
import { storedRunCost } from './run-cost-output';
import { ambiguousWords, noRunWords } from './run-named-words';

// Type-only link to cli.ts (which imports this file through runs-command.ts): the codes are checked equal to EXIT at compile time.
const CODE = { ok: 0, noRun: 1, badInput: 2 } as const satisfies { ok: (typeof EXIT)['ok']; noRun: (typeof EXIT)['runNotCompleted']; badInput: (typeof EXIT)['badInput'] };

export const READ_SUBCOMMANDS = ['list', 'search', 'show'] as const;
export type ReadSubcommand = (typeof READ_SUBCOMMANDS)[number];
export const isReadSubcommand = (sub: string | undefined): sub is ReadSubcommand => (READ_SUBCOMMANDS as readonly (string | undefined)[]).includes(sub);

/** Rows a plain list shows unless --limit says otherwise (a screenful). */
const DEFAULT_LIMIT = 20;

class BadInput extends Error {}

/** `steward runs list|search|show`: the data folder's history read from a terminal (issue 26). Returns the exit code. */
export async function runsReadCommand(sub: ReadSubcommand, args: string[], io: CliIo, usage: string): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(`${usage}\n`);
    return CODE.ok;
  }
  try {
    if (sub === 'show') return await show(args, io);
    return await list(sub, args, io);
  } catch (error) {
    if (!(error instanceof BadInput)) throw error;
    io.stderr(`steward runs: ${error.message}\n\n${usage}\n`);
    return CODE.badInput;
  }
}

const OPTIONS = {
  json: { type: 'boolean', default: false },
  'data-dir': { type: 'string' },
  limit: { type: 'string' },
  status: { type: 'string', multiple: true },
  workflow: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  oldest: { type: 'boolean', default: false },
  after: { type: 'string' },
  imported: { type: 'boolean', default: false },
  'ran-here': { type: 'boolean', default: false },
} as const;

function parse(args: string[]) {
  try {
    return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new BadInput((error as Error).message);
  }
}


function limitOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIMIT;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_PAGE) throw new BadInput(`--limit takes a whole number from 1 to ${MAX_PAGE} (got "${text}")`);
  return n;
}

/** 2026-12-05, or 2026-12-05T14:30[:SS[.mmm]][Z|±hh:mm]. */
const WHEN = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * `--since`/`--until` as the history's instants: a day (2026-12-05) is this machine's local day, from
 * its midnight (`--since`) or through its end (`--until` includes the day); a date and time is local
 * unless it ends in Z or an offset. `--until` is exclusive of the instant it gives.
 */
function periodOf(since: string | undefined, until: string | undefined): { from?: string; to?: string } {
  const from = since === undefined ? undefined : instantOf('--since', since, 'start');
  const to = until === undefined ? undefined : instantOf('--until', until, 'end');
  if (from !== undefined && to !== undefined && from >= to) throw new BadInput(`--since ${since} is not before --until ${until}: no run can start in between`);
  return { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
}

function instantOf(flag: string, text: string, dayEdge: 'start' | 'end'): string {
  const refused = new BadInput(`${flag} takes a day (2026-12-05, this machine's local day) or a day and time (2026-12-05T14:30, local unless it ends in Z or an offset such as +01:00), not "${text}"`);
  const m = WHEN.exec(text);
  if (!m) throw refused;
  const part = (i: number) => Number(m[i] ?? 0);
  const [y, mo, d, h, mi, sec] = [part(1), part(2) - 1, part(3), part(4), part(5), part(6)];
  const ms = Number((m[7] ?? '0').padEnd(3, '0'));
  // The calendar and the clock, checked on their own (Date would roll 2026-02-30 into March, 24:00 into the next day).
  const probe = new Date(Date.UTC(y, mo, d, h, mi, sec));
  if (probe.getUTCFullYear() !== y || probe.getUTCMonth() !== mo || probe.getUTCDate() !== d || probe.getUTCHours() !== h || probe.getUTCMinutes() !== mi || probe.getUTCSeconds() !== sec) throw refused;
  // A day alone: its local midnight, or the next one for --until (which includes the day).
  if (m[4] === undefined) return new Date(y, mo, d + (dayEdge === 'end' ? 1 : 0)).toISOString();
  const offset = m[8];
  if (offset === undefined) return new Date(y, mo, d, h, mi, sec, ms).toISOString();
  const minutes = offset === 'Z' ? 0 : (offset.startsWith('-') ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
  if (Math.abs(minutes) > 14 * 60) throw refused;
  return new Date(Date.UTC(y, mo, d, h, mi, sec, ms) - minutes * 60_000).toISOString();
}

/** `--status completed --status failed`, or `--status completed,failed`. */
function statusesOf(values: string[]): RunStatus[] {
  return values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v.length > 0)
    .map((v) => {
      const parsed = RunStatus.safeParse(v);
      if (!parsed.success) throw new BadInput(`--status takes one of ${RUN_STATUSES.join(', ')} (got "${v}")`);
      return parsed.data;
    });
}

async function list(sub: 'list' | 'search', args: string[], io: CliIo): Promise<number> {
  const searching = sub === 'search';
  const { values, positionals } = parse(args);
  if (!searching && positionals.length > 0) throw new BadInput(`list takes no words ("${positionals.join(' ')}"): steward runs search WORDS finds runs by them`);
  const text = positionals.join(' ').trim();
  if (searching && text.length === 0) throw new BadInput('what to look for? give words (each matches by its start) or a run id (or its first 8 characters)');
  const limit = limitOf(values.limit);
  const status = statusesOf(values.status ?? []);
  const workflow = values.workflow;
  const { from, to } = periodOf(values.since, values.until);
  const oldest = values.oldest;
  if (values.imported && values['ran-here']) throw new BadInput('--imported and --ran-here exclude each other: a run either came from an imported trace or ran here');
  const imported = values.imported ? true : values['ran-here'] ? false : undefined;
  const query: RunsQuery = { limit, status: status.length > 0 ? status : undefined, workflow, from, to, oldest, imported };
  const history = await historyToRead(io, values['data-dir']);
  if (!history.ok && !history.missing) {
    io.stderr(`steward runs: ${history.message}\n`);
    return CODE.badInput;
  }
  let page: RunsPage = { runs: [] };
  if (history.ok) {
    try {
      // --after: the page after that run, in this order (the footer of the page before names it).
      if (values.after !== undefined) {
        const last = history.journal.run(values.after);
        if (!last) throw new BadInput(`--after takes the whole id of a run listed before (the footer of a page names the next one's), and there is no run "${values.after}" here`);
        query.after = { started_at: last.run.started_at, run_id: last.run.run_id };
      }
      page = searching ? history.journal.search(text, query) : history.journal.runsPage(query);
    } finally {
      history.close();
    }
  } else if (values.after !== undefined) {
    throw new BadInput(`--after takes the whole id of a run listed before, and there is no data folder at ${history.dataDir}`);
  } else {
    io.stderr(`steward: there is no data folder at ${history.dataDir}, so no runs (is --data-dir right?)\n`);
  }
  if (values.json) {
    io.stdout(`${JSON.stringify(pageJson(page), null, 2)}\n`);
    return CODE.ok;
  }
  if (page.runs.length === 0) {
    const filters = [
      ...(status.length > 0 ? ['--status'] : []),
      ...(workflow !== undefined ? ['--workflow'] : []),
      ...(from !== undefined ? ['--since'] : []),
      ...(to !== undefined ? ['--until'] : []),
      ...(imported === true ? ['--imported'] : imported === false ? ['--ran-here'] : []),
    ];
    const after = values.after !== undefined ? ` after run ${values.after}` : '';
    const none = searching ? `no run matches "${text}"` : filters.length > 0 ? `no run matches ${filters.join('/')}` : after ? 'no runs' : "no runs in this data folder's history";
    io.stdout(`${none}${after}\n`);
    return CODE.ok;
  }
  // Child runs (workflows a run ran, issue 29) under their parent.
  for (const line of nestedRunLines(page.runs)) io.stdout(`${line}\n`);
  io.stdout(`${pageFooter(page, { limit, oldest, narrow: searching ? 'add words to find fewer' : 'narrow with --status, --workflow, --since, --until, --imported or --ran-here' })}\n`);
  return CODE.ok;
}

async function show(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args);
  const notHere = [...(['limit', 'status', 'workflow', 'since', 'until', 'after'] as const).filter((flag) => values[flag] !== undefined), ...(['oldest', 'imported', 'ran-here'] as const).filter((flag) => values[flag])];
  if (notHere.length > 0) throw new BadInput(`show takes one run: ${notHere.map((flag) => `--${flag}`).join(', ')} apply to list and search`);
  const [typed, ...extra] = positionals;
  if (typed === undefined || extra.length > 0) throw new BadInput('show takes one RUN_ID (the whole id, or its first 8 characters or more)');
  const history = await historyToRead(io, values['data-dir']);
  if (!history.ok) {
    io.stderr(`steward runs: ${history.missing ? `no run "${typed}": there is no data folder at ${history.dataDir} (is --data-dir right?)` : history.message}\n`);
    return history.missing ? CODE.noRun : CODE.badInput;
  }
  try {
    const found = runNamedBy(history.journal.connection, typed);
    if (found.kind === 'ambiguous') {
      const described = (runId: string) => {
        const run = history.journal.run(runId)?.run;
        return run ? `${run.run_id} · ${run.spec_name} · started ${localTime(run.started_at)}` : runId;
      };
      io.stderr(`steward runs: ${ambiguousWords(typed, found, described)}\n`);
      return CODE.badInput;
    }
    const listed = found.kind === 'run' ? history.journal.run(found.runId) : undefined;
    if (!listed) {
      io.stderr(`steward runs: ${noRunWords(typed, `the history of ${history.dataDir}`, found.kind === 'none' && found.short)}; steward runs search finds runs by words\n`);
      return CODE.noRun;
    }
    const { run, imported } = listed;
    const events = history.journal.runEvents(run.run_id);
    if (values.json) io.stdout(`${JSON.stringify(shownJson(run, imported, events, storedRunCost(events, history.dataDir)), null, 2)}\n`);
    else io.stdout(`${shownLines(run, imported, events.length).join('\n')}\n`);
    return CODE.ok;
  } finally {
    history.close();
  }
}

