import { RUN_STATUS_LABELS, runStatusLabel, type RunEvent } from '@shared/contracts/events';
import type { CostJson } from '@shared/accounting/cost-words';
import type { RunRow } from '@shared/history/run-summary';
import { roundsWords } from '@shared/history/rounds-words';
import type { ListedRun, RunsPage } from '../../events/history-queries';
import { plural } from '@shared/util/words';

/** A run id as a person types it: its first 8 characters (steward runs show takes them). */
export const shortId = (runId: string) => runId.slice(0, 8);

/** The last line of a `steward run` that ended: the id it has in the data folder's history (the app's Runs). */
export function runIdLine(runId: string, inHistory: boolean): string {
  return `run id ${runId}${inHistory ? ` (steward runs show ${shortId(runId)})` : ''}`;
}

/** The run's row as `--json` prints it: without the search index's words (they are the row's own text again). */
export function printableRow(row: RunRow): Omit<RunRow, 'words' | 'trace_words' | 'usage'> {
  // `usage` is the index's raw facts; `runs show --json` prints the run's priced `cost` instead.
  const { words: _words, trace_words: _traceWords, usage: _usage, ...rest } = row;
  return rest;
}

/** `steward runs list|search --json`: the page as the history gives it, each row printable. */
export function pageJson(page: RunsPage): { runs: Array<Omit<ListedRun, 'run'> & { run: ReturnType<typeof printableRow> }>; next?: RunsPage['next'] } {
  return { runs: page.runs.map((listed) => ({ ...listed, run: printableRow(listed.run) })), ...(page.next ? { next: page.next } : {}) };
}

/** `steward runs show --json`: the run's summary and its events exactly as stored, in sequence order. */
export function shownJson(row: RunRow, imported: boolean, events: readonly RunEvent[], cost?: CostJson) {
  return { run: printableRow(row), imported, ...(cost ? { cost } : {}), events };
}

/** The most runs one page holds (the history's own limit). */
export const MAX_PAGE = 1000;

const pad = (n: number) => String(n).padStart(2, '0');

/** A time in this machine's zone, to the minute (or second): "2025-03-04 09:15". */
export function localTime(iso: string, seconds = false): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const day = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  return `${day} ${pad(d.getHours())}:${pad(d.getMinutes())}${seconds ? `:${pad(d.getSeconds())}` : ''}`;
}

/** How long from `from` to `to`, in the largest units that say it: "850 ms", "12 s", "3 min 4 s", "2 h 5 min". */
export function duration(from: string, to: string): string | undefined {
  const ms = Date.parse(to) - Date.parse(from);
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  if (ms < 1000) return `${ms} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const min = Math.round(s / 60);
  return `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;
}

/** "3 rounds (the 3rd was interrupted)": the count the app's Runs and run view show, and what became of an unfinished round. */
const roundsPhrase = (row: RunRow) => {
  const { count, note } = roundsWords(row);
  return `${plural(count, 'round')}${note === undefined ? '' : ` (${note})`}`;
};
// A run that lost items says how many ("Completed · 1 of 5 items failed"), as the app's Runs does.
const statusOf = (row: RunRow) => runStatusLabel(row.status, row.workflow?.supervised === true, row.partial);
const LABEL_WIDTH = Math.max(...Object.values(RUN_STATUS_LABELS).map((label) => label.length), 'Completed — supervised'.length);

/** One run of a list: short id, status, name, when it started, its rounds and events, and where it came from. */
export function runLine({ run, events, imported }: ListedRun): string {
  const tags = [...(run.dry_run ? ['dry run'] : []), ...(imported ? ['imported'] : [])];
  return [`${shortId(run.run_id)}  ${statusOf(run).padEnd(LABEL_WIDTH)}  ${run.spec_name}`, `started ${localTime(run.started_at)}`, roundsPhrase(run), plural(events, 'event'), ...tags].join(' · ');
}

/**
 * The line under a list: how many it showed and, when more follow, how to see them: the same
 * command with `--after` and the id of the page's last run goes on from there, however long the
 * history (--limit stops at 1,000).
 */
export function pageFooter(page: RunsPage, { limit, oldest, narrow }: { limit: number; oldest: boolean; narrow: string }): string {
  const shown = page.runs.length;
  if (!page.next) return `${plural(shown, 'run')} · steward runs show RUN_ID (or its first 8 characters) shows one`;
  const next = `the same command with --after ${page.next.run_id} shows the next ${limit}`;
  const more = limit < MAX_PAGE ? `${next}; --limit ${Math.min(MAX_PAGE, limit * 2)} shows more at once` : `${next}; or ${narrow}`;
  return `${plural(shown, 'run')} shown, ${oldest ? 'oldest' : 'newest'} first; more follow: ${more}`;
}

/** What `steward runs show` prints of a run: its summary, then how many of its events are stored. */
export function shownLines(row: RunRow, imported: boolean, stored: number): string[] {
  const kind = row.workflow ? 'workflow' : 'agent spec';
  const tags = [...(row.dry_run ? ['dry run (no tool executed)'] : []), ...(imported ? ['imported from a trace (it never ran here)'] : [])];
  const lines = [`run ${row.run_id}`, `  ${row.spec_name} · ${statusOf(row)}${tags.map((t) => ` · ${t}`).join('')}`];
  if (row.workflow_id) lines.push(`  ${kind} ${row.workflow_id}${row.workflow ? ` · ${plural(row.workflow.nodes, 'node')} · ${plural(Object.keys(row.workflow.invocations).length, 'node invocation')}` : ''}`);
  if (row.task) lines.push(`  task: ${row.task}`);
  const known = (model: string) => model !== '?' && model !== '—';
  if (known(row.models.student) || known(row.models.teacher)) lines.push(`  models: student ${row.models.student} · teacher ${row.models.teacher}${row.supervision_enabled ? '' : ' (supervision off)'}`);
  const took = row.finished_at ? duration(row.started_at, row.finished_at) : undefined;
  lines.push(`  started ${localTime(row.started_at, true)}${row.finished_at ? ` · ended ${localTime(row.finished_at, true)}${took ? ` (${took})` : ''}` : ' · not ended'}`);
  lines.push(`  ${roundsPhrase(row)} · ${eventsLine(stored, row.event_count)}`);
  if (row.message) lines.push(`  message: ${row.message}`);
  if (row.output) lines.push('  output:', ...row.output.split('\n').map((line) => `    ${line}`));
  lines.push(`its events: steward runs show ${row.run_id} --json`, `as a trace file: steward runs export ${row.run_id.slice(0, 8)} -o FILE.jsonl`);
  return lines;
}

/** The events stored against those the run announced when it ended (run.finished's event_count). */
function eventsLine(stored: number, announced: number | undefined): string {
  if (announced === undefined) return `${plural(stored, 'event')} stored (the run has not ended, so it announced no count)`;
  if (stored < announced) return `${plural(stored, 'event')} stored: only ${stored} of the ${announced} the run announced are here (the rest never reached this history)`;
  return `${plural(stored, 'event')} stored (the run announced ${announced})`;
}
