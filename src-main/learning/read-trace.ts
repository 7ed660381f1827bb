import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { LearningExample, PreferenceLine, TraceProblem } from '@shared/contracts/learning-export';
import { preferenceLineOf } from '@shared/pattern/preference';
import { learningExampleFromEvent } from '@shared/learning/export-formats';
import { PromptBook } from '@shared/learning/learning-context';
import { traceLineEvent } from '../events/trace-line';
import { LearningExportError } from './learning-errors';
import { fileProblem } from '../util/file-problem';

export interface TraceExamples {
  examples: LearningExample[];
  /** Pattern nodes' preference pairs (a rejected output, then the approved one that fixed it). */
  pairs: PreferenceLine[];
  /** Valid Steward events read. */
  events: number;
  /** Lines skipped because they are not JSON or not a Steward event (e.g. the torn last line of a killed run). */
  problems: TraceProblem[];
}

/**
 * Reads a `--trace` JSONL file and returns its learning examples. Every line is validated as a
 * RunEvent; a bad line is skipped and reported with its line number, so one torn line does not
 * lose a run's learning data. A file with lines but no valid event at all is not a trace: that,
 * and an unreadable file, is a LearningExportError. A dry run's examples are left out.
 */
export async function readTraceExamples(path: string): Promise<TraceExamples> {
  const examples: LearningExample[] = [];
  const pairs: PreferenceLine[] = [];
  const problems: TraceProblem[] = [];
  const specIds = new Map<string, string>();
  const dryRuns = new Set<string>();
  const prompts = new PromptBook();
  let events = 0;
  let lineNo = 0;
  try {
    const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
    for await (const text of lines) {
      lineNo += 1;
      if (text.trim() === '') continue;
      const read = traceLineEvent(text);
      if (!read.ok) {
        problems.push({ file: path, line: lineNo, message: read.problem });
        continue;
      }
      const { event } = read;
      events += 1;
      // run.started precedes the run's examples in a trace; it names the agent the example belongs to.
      if (event.type === 'run.started') specIds.set(event.run_id, event.spec_id);
      // A dry run executed nothing; traces written before dry runs stopped recording examples still hold some.
      if (event.type === 'run.started' && event.dry_run) dryRuns.add(event.run_id);
      if (event.type === 'workflow.started' && event.dry_run) dryRuns.add(event.run_id);
      if (event.type === 'pattern.preference' && !dryRuns.has(event.run_id)) {
        const line = preferenceLineOf(event);
        if (line) pairs.push(line);
      }
      if (event.type === 'learning.example' && !dryRuns.has(event.run_id)) {
        // A prompt stored as a reference to an earlier example's is rebuilt whole, as the export always wrote it.
        const prompt = prompts.resolve(event);
        if (prompt.ok) examples.push(learningExampleFromEvent(event, specIds.get(event.run_id), prompt.context));
        else problems.push({ file: path, line: lineNo, message: `a learning example whose prompt cannot be rebuilt: ${prompt.message}` });
      }
    }
  } catch (err) {
    throw new LearningExportError(`cannot read trace ${path}: ${fileProblem(err)}`);
  }
  const [first] = problems;
  if (events === 0 && first !== undefined) {
    throw new LearningExportError(`${path} is not a Steward trace (line ${first.line}: ${first.message})`);
  }
  return { examples, pairs, events, problems };
}
