import { parseArgs } from 'node:util';
import { INTERVENTION_KIND_LABELS, type InterventionKind } from '@shared/contracts/intervention';
import { openWaitingStores, type WaitingStores } from '../../engine/waiting-stores';
import { defaultDataDir } from '../../util/data-dir';
import type { CliIo } from './cli-io';
import { localTime } from './format-history';
import { typedPath } from './typed-path';
import { roundNumber } from '@shared/contracts/round-number';
import { memberOfOutputId, waitingAt } from '@shared/pattern/member-label';

/** One question waiting for a person, as `steward runs waiting --json` prints it. */
export interface WaitingRow {
  run_id: string;
  /** The agent spec's or the workflow's name. */
  name: string;
  /** A workflow run's waiting node. */
  node?: string;
  /** A pattern node's member agent that asks (its member id), when the question is a member's. */
  member?: string;
  /** Numbered from 1, as everywhere a person reads it. */
  round: number;
  kind: InterventionKind;
  intervention_id: string;
  /** The question, or why the person is asked. */
  asks: string;
  since: string;
}

/** Every question waiting in the data folder, oldest first: agent runs and workflow runs (the app lists the same). */
export function waitingRows(stores: WaitingStores, log: (line: string) => void): WaitingRow[] {
  const agents = stores.checkpoints
    .list(log)
    .map((c): WaitingRow => ({ run_id: c.run_id, name: c.spec.name, round: roundNumber(c.intervention.round), kind: c.intervention.kind, intervention_id: c.intervention.id, asks: c.intervention.reason, since: c.intervention.requested_at }));
  const workflows = stores.workflowCheckpoints
    .list(log)
    .flatMap((c) =>
      Object.entries(c.waiting).map(([invocation, { intervention, pattern }]): WaitingRow => {
        const node = c.invocations.find((i) => i.id === invocation)?.node;
        // A pattern node parked mid-iteration: the question is its member agent's own.
        const member = pattern?.member !== undefined ? memberOfOutputId(pattern.member.tag) : undefined;
        return { run_id: c.run_id, name: c.graph.name, ...(node !== undefined ? { node } : {}), ...(member !== undefined ? { member } : {}), round: roundNumber(intervention.round), kind: intervention.kind, intervention_id: intervention.id, asks: intervention.reason, since: intervention.requested_at };
      }),
    );
  return [...agents, ...workflows].sort((a, b) => a.since.localeCompare(b.since) || a.intervention_id.localeCompare(b.intervention_id));
}

/** `steward runs waiting [--json]`: what waits for a person, and how to answer it. */
export function waitingCommand(args: string[], io: CliIo, usage: string): number {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { json: { type: 'boolean', default: false }, 'data-dir': { type: 'string' } }, allowPositionals: false, strict: true });
  } catch (err) {
    io.stderr(`steward runs: ${(err as Error).message}\n\n${usage}\n`);
    return 2;
  }
  const dataDir = io.hosted ? io.hosted.dataDir : parsed.values['data-dir'] !== undefined ? typedPath(io, parsed.values['data-dir']) : defaultDataDir(io.env);
  const log = (line: string) => io.stderr(`steward: ${line}\n`);
  // The app's own stores while it runs; else the history's, read on a connection of this command's.
  let rows: WaitingRow[];
  if (io.hosted) rows = waitingRows(io.hosted, log);
  else {
    const stores = openWaitingStores(dataDir, log);
    try {
      rows = waitingRows(stores, log);
    } finally {
      stores.close();
    }
  }
  if (parsed.values.json) {
    io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    io.stdout('nothing waits for you\n');
    return 0;
  }
  for (const row of rows) {
    io.stdout(`${row.run_id} · ${row.name}${row.node !== undefined ? ` · node ${waitingAt(row.node, row.member)}` : ''} · round ${row.round} · ${INTERVENTION_KIND_LABELS[row.kind].toLowerCase()} · since ${localTime(row.since, true)}\n  ${row.asks}\n`);
  }
  io.stdout(`${rows.length} waiting for you · answer with: steward answer RUN_ID ANSWER (steward answer --help)\n`);
  return 0;
}
