import { resolve } from 'node:path';
import type { LearningExample, LearningExportFormat, LearningExportSummary, PreferenceLine, TraceProblem } from '@shared/contracts/learning-export';
import { toExportLines, toJsonl } from '@shared/learning/export-formats';
import { LearningExportError } from './learning-errors';
import { readTraceExamples } from './read-trace';
import { fileProblem } from '../util/file-problem';
import { writeFileAtomic } from '../util/write-file-atomic';

export interface ExportLearningOptions {
  /** One or more `--trace` JSONL files; examples are read in order and deduplicated by event id. */
  trace: string | readonly string[];
  format: LearningExportFormat;
  /** A file path (written whole, replacing it), or a sink that receives the JSONL text (e.g. stdout). */
  out: string | ((text: string) => void);
}

/**
 * Trace(s) → fine-tuning JSONL. Every line written has passed its format's schema (the pure
 * conversion validates each one). Throws LearningExportError for an unreadable or non-trace input
 * or an unwritable output; otherwise returns what was written and what was skipped, and why.
 */
export async function exportLearning(options: ExportLearningOptions): Promise<LearningExportSummary> {
  const traces = typeof options.trace === 'string' ? [options.trace] : [...options.trace];
  if (traces.length === 0) throw new LearningExportError('no trace file given');
  if (typeof options.out === 'string') {
    const out = resolve(options.out);
    if (traces.some((t) => resolve(t) === out)) throw new LearningExportError(`refusing to overwrite the trace ${options.out} with the export`);
  }

  const examples: LearningExample[] = [];
  const pairs: PreferenceLine[] = [];
  const problems: TraceProblem[] = [];
  for (const trace of traces) {
    const read = await readTraceExamples(trace);
    examples.push(...read.examples);
    pairs.push(...read.pairs);
    problems.push(...read.problems);
  }

  const converted = toExportLines(options.format, examples);
  const { skipped } = converted;
  // A pattern's judged pairs are preference data as they stand (issue 12); SFT takes none of them.
  const lines = options.format === 'preference' ? [...converted.lines, ...pairs] : converted.lines;
  const text = toJsonl(lines);
  if (typeof options.out === 'string') writeWhole(options.out, text);
  else options.out(text);

  return {
    format: options.format,
    traces: traces.length,
    examples: examples.length - (skipped.duplicate ?? 0),
    written: lines.length,
    skipped,
    problems,
  };
}

/** Written whole or not at all (util/write-file-atomic.ts): a failed export never leaves a half-written dataset. */
function writeWhole(path: string, text: string): void {
  try {
    // The file is the person's dataset: the umask decides who may read it, as for any file they write.
    writeFileAtomic(path, (write) => write(text), 0o666);
  } catch (err) {
    throw new LearningExportError(`cannot write ${path}: ${fileProblem(err, 'write')}`);
  }
}
