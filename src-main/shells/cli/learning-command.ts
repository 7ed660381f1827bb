import { parseArgs } from 'node:util';
import { LEARNING_EXPORT_FORMATS, LearningExportFormat, type LearningExportSummary } from '@shared/contracts/learning-export';
import { describeCount, describeSkipped } from '@shared/learning/export-formats';
import { exportLearning } from '../../learning/export-learning';
import { LearningExportError } from '../../learning/learning-errors';
import type { CliIo, EXIT } from './cli-io';
import { PROMOTION_USAGE, promotionCommand } from './promotion-command';
import { wrapUsage } from '@shared/util/wrap-usage';

// Type-only link to cli.ts (which imports this file): the codes are checked equal to EXIT at compile time.
const CODE = { ok: 0, badInput: 2 } as const satisfies Pick<typeof EXIT, 'ok' | 'badInput'>;

/** Most bad trace lines listed individually; the rest are counted. */
const MAX_PROBLEMS_SHOWN = 10;

export const LEARNING_USAGE = wrapUsage(`Usage:
  steward learning export TRACE.jsonl [TRACE.jsonl …] --format sft|preference -o OUT.jsonl
  steward learning promotion [WORKFLOW_ID] [--node NODE] [--window N] [--json] [--data-dir DIR]

  export     turn the learning examples in --trace files into fine-tuning JSONL
             --format sft          one chat example per reviewed round with a final decision
             --format preference   one pair per teacher replacement (preferred = teacher)
             -o, --output FILE     where to write; -o - writes to standard output

${PROMOTION_USAGE.replace(/^Usage:\n.*\n\n/, '')}

See docs/learning-data.md for what each line contains.`);

/** `steward learning …`. Returns the exit code; never throws. */
export async function learningCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'export':
      return exportCommand(rest, io);
    case 'promotion':
      return promotionCommand(rest, io);
    case '--help':
    case '-h':
    case 'help':
      io.stdout(`${LEARNING_USAGE}\n`);
      return CODE.ok;
    case undefined:
      io.stderr(`steward learning: which subcommand?\n\n${LEARNING_USAGE}\n`);
      return CODE.badInput;
    default:
      io.stderr(`steward learning: unknown subcommand "${sub}"\n\n${LEARNING_USAGE}\n`);
      return CODE.badInput;
  }
}

async function exportCommand(args: string[], io: CliIo): Promise<number> {
  const fail = (message: string, usage = false): number => {
    io.stderr(`steward learning export: ${message}\n${usage ? `\n${LEARNING_USAGE}\n` : ''}`);
    return CODE.badInput;
  };

  let values: { format?: string | boolean; output?: string | boolean };
  let traces: string[];
  try {
    ({ values, positionals: traces } = parseArgs({
      args,
      options: { format: { type: 'string' }, output: { type: 'string', short: 'o' } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (err) {
    return fail((err as Error).message, true);
  }
  if (traces.length === 0) return fail('give at least one TRACE.jsonl (written by steward run --trace)', true);
  const format = LearningExportFormat.safeParse(values.format);
  if (!format.success) {
    const given = typeof values.format === 'string' ? `unknown --format "${values.format}"` : '--format is required';
    return fail(`${given}: use ${LEARNING_EXPORT_FORMATS.join(' or ')}`, true);
  }
  if (typeof values.output !== 'string' || values.output === '') return fail('-o OUT.jsonl is required (-o - writes to standard output)', true);

  const toStdout = values.output === '-';
  let summary: LearningExportSummary;
  try {
    summary = await exportLearning({ trace: traces, format: format.data, out: toStdout ? io.stdout : values.output });
  } catch (err) {
    if (err instanceof LearningExportError) return fail(err.message);
    return fail(`unexpected error: ${err instanceof Error ? err.message : String(err)}`);
  }

  for (const p of summary.problems.slice(0, MAX_PROBLEMS_SHOWN)) io.stderr(`steward: warning: ${p.file}:${p.line}: skipped line: ${p.message}\n`);
  if (summary.problems.length > MAX_PROBLEMS_SHOWN) io.stderr(`steward: warning: ${summary.problems.length - MAX_PROBLEMS_SHOWN} more bad lines skipped\n`);
  // With -o -, standard output is the dataset: the summary must not end up in it.
  (toStdout ? io.stderr : io.stdout)(`${summaryLine(summary, toStdout ? 'standard output' : values.output)}\n`);
  return CODE.ok;
}

/** "wrote 3 SFT examples to out.jsonl (1 skipped: no final decision)". */
export function summaryLine(summary: LearningExportSummary, destination: string): string {
  const skipped = describeSkipped(summary.skipped);
  const head = `wrote ${describeCount(summary.format, summary.written)} to ${destination}`;
  const tail = skipped === '' ? '' : ` (${skipped})`;
  const none =
    summary.examples === 0
      ? `: no learning examples in ${summary.traces === 1 ? 'the trace' : `${summary.traces} traces`} (only rounds the teacher reviewed make them)`
      : '';
  return `${head}${none}${tail}`;
}
