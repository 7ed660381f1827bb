/**
 * The SCS transcript budget (seed 001: "summarize old SCS decisions; never append all committee
 * text forever"). The decisions so far — the executor's rounds and the monitor's gates — go into
 * the committee's and monitor's prompts as lines; the newest are kept verbatim, the older ones are
 * folded into one summary line of counts, so the whole stays within `budget` characters however
 * long the run is.
 */

export interface TranscriptEntry {
  who: 'executor' | 'monitor';
  /** The executor's tool (or decision type) / the monitor's decision kind. */
  kind: string;
  /** The verbatim line (cut to MAX_LINE). */
  text: string;
  failed?: boolean;
}

export interface BudgetedTranscript {
  /** The summary of the older entries, first, when any were folded. */
  summary?: string;
  /** The newest entries, verbatim, oldest first. */
  verbatim: string[];
  /** Characters of summary and lines together (each line counted with its newline). */
  chars: number;
}

const MAX_LINE = 300;
/** Room kept for the summary line when anything is folded. */
const SUMMARY_ROOM = 400;

function counts(entries: readonly TranscriptEntry[]): string {
  const by = new Map<string, number>();
  for (const e of entries) by.set(e.kind, (by.get(e.kind) ?? 0) + 1);
  const top = [...by].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const shown = top.slice(0, 6).map(([k, n]) => `${k}×${n}`);
  return top.length > 6 ? `${shown.join(', ')}, …` : shown.join(', ');
}

function summarize(older: readonly TranscriptEntry[]): string {
  const executor = older.filter((e) => e.who === 'executor');
  const monitor = older.filter((e) => e.who === 'monitor');
  const failed = executor.filter((e) => e.failed).length;
  const parts = [`Earlier: ${older.length} decisions, summarised`];
  if (executor.length) parts.push(`executor: ${executor.length} rounds, ${failed} failed (${counts(executor)})`);
  if (monitor.length) parts.push(`monitor: ${counts(monitor)}`);
  return parts.join('; ').slice(0, SUMMARY_ROOM - 1);
}

/** The entries within `budget` characters: newest verbatim, older summarised. */
export function budgetTranscript(entries: readonly TranscriptEntry[], budget: number): BudgetedTranscript {
  const lines = entries.map((e) => (e.text.length > MAX_LINE ? `${e.text.slice(0, MAX_LINE - 1)}…` : e.text));
  const total = lines.reduce((n, l) => n + l.length + 1, 0);
  if (total <= budget) return { verbatim: lines, chars: total };
  const room = Math.max(0, budget - SUMMARY_ROOM);
  let used = 0;
  let keep = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const size = (lines[i]?.length ?? 0) + 1;
    if (used + size > room) break;
    used += size;
    keep++;
  }
  const verbatim = lines.slice(lines.length - keep);
  const summary = summarize(entries.slice(0, entries.length - keep)).slice(0, Math.max(0, budget - used - 1));
  return { summary, verbatim, chars: used + summary.length + 1 };
}

/** The transcript as prompt text. */
export function transcriptText(t: BudgetedTranscript): string {
  if (!t.summary && t.verbatim.length === 0) return '(nothing yet)';
  return [...(t.summary ? [t.summary] : []), ...t.verbatim].join('\n');
}
