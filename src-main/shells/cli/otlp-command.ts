import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { exportTraceFile } from '../../otlp/export-otlp';
import { PriceListStore } from '../../accounting/price-list-store';
import { OtlpExportError } from '../../otlp/otlp-errors';
import { otlpTarget, sendOtlp } from '../../otlp/send-otlp';
import { defaultDataDir } from '../../util/data-dir';
import type { CliIo, EXIT } from './cli-io';
import { storedRunHosts } from './workflows-command';
import { wrapUsage } from '@shared/util/wrap-usage';

// Type-only link to cli.ts (which imports this file): the codes are checked equal to EXIT at compile time.
const CODE = { ok: 0, notSent: 1, badInput: 2 } as const satisfies Record<'ok' | 'notSent' | 'badInput', (typeof EXIT)[keyof typeof EXIT]>;

export const TRACE_USAGE = wrapUsage(`Usage:
  steward trace otlp TRACE.jsonl [-o OUT.json] [--endpoint URL] [--allow-host HOST]... [--data-dir DIR]

  otlp       a --trace file as OpenTelemetry OTLP/JSON (GenAI semantic conventions: invoke_agent,
             chat, execute_tool spans; teacher reviews as apply_guardrail spans)
             -o, --output FILE   where to write the JSON; - (or no -o and no --endpoint) is stdout
             --endpoint URL      also POST it to an OTLP/HTTP collector (a bare address gets
                                 /v1/traces); loopback always, another host only when the data
                                 folder's privacy policy or --allow-host allows it
             --allow-host HOST   let this export reach HOST
             --data-dir DIR      whose privacy policy applies (default STEWARD_DATA_DIR, else the
                                 platform's usual place)

See docs/otlp.md for the span mapping.`);

/** `steward trace …`. Returns the exit code; never throws. */
export async function traceCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'otlp':
      return otlpCommand(rest, io);
    case '--help':
    case '-h':
    case 'help':
      io.stdout(`${TRACE_USAGE}\n`);
      return CODE.ok;
    default:
      io.stderr(`steward trace: ${sub === undefined ? 'which subcommand?' : `unknown subcommand "${sub}"`}\n\n${TRACE_USAGE}\n`);
      return CODE.badInput;
  }
}

async function otlpCommand(args: string[], io: CliIo): Promise<number> {
  const fail = (message: string, code: number = CODE.badInput, usage = false): number => {
    io.stderr(`steward trace otlp: ${message}\n${usage ? `\n${TRACE_USAGE}\n` : ''}`);
    return code;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        output: { type: 'string', short: 'o' },
        endpoint: { type: 'string' },
        'allow-host': { type: 'string', multiple: true },
        'data-dir': { type: 'string' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    return fail((err as Error).message, CODE.badInput, true);
  }
  const { values, positionals } = parsed;
  const [trace] = positionals;
  if (trace === undefined || positionals.length > 1) return fail('needs exactly one TRACE.jsonl', CODE.badInput, true);

  // The endpoint is checked before anything is read or written: a refused host fails fast.
  const endpoint = values.endpoint;
  const policy = { allowed_hosts: endpoint === undefined ? [] : storedRunHosts(values['data-dir'] ?? defaultDataDir(io.env), values['allow-host'] ?? []) };
  if (endpoint !== undefined) {
    const target = otlpTarget(endpoint, policy);
    if (!target.ok) return fail(target.message);
  }

  let exported;
  try {
    exported = await exportTraceFile(trace, new PriceListStore(values['data-dir'] ?? defaultDataDir(io.env)).read().prices);
  } catch (err) {
    if (err instanceof OtlpExportError) return fail(err.message);
    throw err;
  }
  for (const problem of exported.problems) io.stderr(`steward trace otlp: skipped ${problem.file}:${problem.line}: ${problem.message}\n`);

  const output = values.output ?? (endpoint === undefined ? '-' : undefined);
  if (output === '-') io.stdout(`${new TextDecoder().decode(exported.body)}\n`);
  else if (output !== undefined) {
    try {
      writeFileSync(output, exported.body);
    } catch (err) {
      return fail(`cannot write ${output}: ${(err as Error).message}`);
    }
  }
  const summary = `${exported.spans} span${exported.spans === 1 ? '' : 's'} from ${exported.runs} run${exported.runs === 1 ? '' : 's'}`;
  if (output !== undefined && output !== '-') io.stderr(`wrote ${summary} to ${output}\n`);

  if (endpoint === undefined) return CODE.ok;
  const sent = await sendOtlp(exported.body, endpoint, policy);
  if (!sent.ok) return fail(sent.message, CODE.notSent);
  io.stderr(`sent ${summary} to ${sent.url}${sent.rejectedSpans > 0 ? ` (the collector rejected ${sent.rejectedSpans})` : ''}\n`);
  return CODE.ok;
}
