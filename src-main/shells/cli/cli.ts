import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { RunEvent } from '@shared/contracts/events';
import { RUN_STATUS_LABELS } from '@shared/contracts/events';
import { modelLabel } from '@shared/contracts/model';
import { runAgent } from '../../engine/run-agent';
import { openFileLedger } from '../../mcp/idempotency-ledger';
import { loadSpecFile } from '../../spec/load-spec';
import { SpecError } from '../../spec/spec-errors';
import { defaultDataDir } from '../../util/data-dir';
import { APP_VERSION } from '../../version';
import { formatRound } from './format-round';
import { openTraceWriter } from './trace-writer';
import { validateSpecFile } from './validate-spec';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** Aborted on Ctrl+C: the current round ends cleanly and the run records `cancelled`. */
  signal?: AbortSignal;
}

export const EXIT = { ok: 0, runNotCompleted: 1, badInput: 2 } as const;

const USAGE = `Usage:
  steward run FILE [--json] [--trace OUT.jsonl] [--data-dir DIR]
  steward validate FILE
  steward --version

  run        run an agent spec through the decision boundary
             --json    print one JSON object (status, output, history, rounds, executions)
             --trace   write every event as JSON lines to OUT.jsonl
  validate   check a spec: schema, script, servers start, allowlisted tools exist

Exit codes: 0 completed · 1 the run ended otherwise (blocked, failed, …) · 2 bad input`;

/** The `steward` command, in-process (the bin wraps it). Returns the exit code; never throws. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'run':
        return await runCommand(rest, io);
      case 'validate':
        return await validateCommand(rest, io);
      case '--version':
      case '-v':
        io.stdout(`${APP_VERSION}\n`);
        return EXIT.ok;
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        io.stdout(`${USAGE}\n`);
        return command === undefined ? EXIT.badInput : EXIT.ok;
      default:
        io.stderr(`steward: unknown command "${command}"\n\n${USAGE}\n`);
        return EXIT.badInput;
    }
  } catch (err) {
    io.stderr(`steward: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.badInput;
  }
}

function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new SpecError(`${(err as Error).message}\n\n${USAGE}`);
  }
}

async function runCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    json: { type: 'boolean', default: false },
    trace: { type: 'string' },
    'data-dir': { type: 'string' },
  });
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new SpecError(`run needs exactly one spec FILE\n\n${USAGE}`);
  const loaded = loadSpecFile(file);
  const dataDir = typeof values['data-dir'] === 'string' ? values['data-dir'] : defaultDataDir(io.env);
  mkdirSync(dataDir, { recursive: true });
  const ledger = openFileLedger(join(dataDir, 'idempotency-ledger.jsonl'));
  const trace = typeof values.trace === 'string' ? openTraceWriter(values.trace) : undefined;
  const json = values.json === true;
  const { spec } = loaded;

  if (!json) {
    const supervision = spec.supervision.enabled ? `supervision on (${spec.supervision.review})` : 'supervision off';
    io.stdout(`steward · ${spec.name} · student=${modelLabel(spec.models.student)} teacher=${modelLabel(spec.models.teacher)} · ${supervision}\n`);
  }
  const onEvent = (event: RunEvent) => {
    trace?.(event);
    if (!json && event.type === 'round.completed') io.stdout(`${formatRound(event.record)}\n`);
  };
  const result = await runAgent({
    spec,
    specDir: loaded.specDir,
    workspace: loaded.workspace,
    script: loaded.script,
    ledger,
    onEvent,
    signal: io.signal,
    ollamaHost: io.env.OLLAMA_HOST,
  });

  if (result.setup_error !== undefined) {
    io.stderr(`steward: ${result.setup_error}\n`);
    if (json) io.stdout(`${JSON.stringify(stripSetup(result), null, 2)}\n`);
    return EXIT.badInput;
  }
  if (json) {
    io.stdout(`${JSON.stringify(stripSetup(result), null, 2)}\n`);
  } else {
    const tools = result.executions.length;
    io.stdout(`${RUN_STATUS_LABELS[result.status].toLowerCase()} · ${result.rounds.length} round(s) · ${tools} tool call(s)${result.message ? ` · ${result.message}` : ''}\n`);
    if (result.output) io.stdout(`${result.output}\n`);
  }
  return result.status === 'completed' ? EXIT.ok : EXIT.runNotCompleted;
}

function stripSetup<T extends { setup_error?: string }>(result: T): Omit<T, 'setup_error'> {
  const { setup_error: _setup, ...rest } = result;
  return rest;
}

async function validateCommand(args: string[], io: CliIo): Promise<number> {
  const { positionals } = parse(args, {});
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new SpecError(`validate needs exactly one spec FILE\n\n${USAGE}`);
  const report = await validateSpecFile(file);
  for (const line of report.lines) io.stdout(`${line}\n`);
  if (report.error) {
    io.stderr(`steward: ${report.error}\n`);
    return EXIT.badInput;
  }
  io.stdout(`valid: ${file}\n`);
  return EXIT.ok;
}
