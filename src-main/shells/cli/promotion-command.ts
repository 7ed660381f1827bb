import { parseArgs } from 'node:util';
import { DeploymentSettings } from '@shared/contracts/profiles';
import type { PromotionMetrics } from '@shared/policy/promotion';
import type { PromotionFigures, PromotionSubject } from '../../events/promotion-store';
import type { CliIo, EXIT } from './cli-io';
import { historyToRead } from './history-to-read';
import { wrapUsage } from '@shared/util/wrap-usage';

// Type-only link to cli.ts (which imports this file through learning-command.ts): the codes are checked equal to EXIT at compile time.
const CODE = { ok: 0, badInput: 2 } as const satisfies Pick<typeof EXIT, 'ok' | 'badInput'>;

/** The window a deployment profile counts over unless it says otherwise. */
const DEFAULT_WINDOW = DeploymentSettings.parse({}).promotion.window;
/** Points of `--json`'s series for one node (the app's chart draws as many). */
const SERIES_POINTS = 60;

export const PROMOTION_USAGE = wrapUsage(`Usage:
  steward learning promotion [WORKFLOW_ID] [--node NODE] [--window N] [--json] [--data-dir DIR]

  promotion  what the student of each agent node has earned, from the data folder's history (the
             Learning screen's Promotion cards): its reviewed rounds, and over the last --window of
             them (default ${DEFAULT_WINDOW}) how often the teacher agreed, how often it blocked, and
             protected-effect errors. Without WORKFLOW_ID, every agent node that has any; with it,
             that workflow's (its own agent runs: --node ''; a graph's agent node: --node ID).
             --json adds, for one node, the chart's series. Reads the history directly, or through
             the app while it runs.`);

class BadInput extends Error {}

const pct = (r: number | null) => (r === null ? '—' : `${Math.round(r * 100)}%`);
const nodeWords = (s: PromotionSubject) => (s.node === '' ? `${s.workflow_id} (its agent runs)` : `${s.workflow_id} › ${s.node}`);
const metricWords = (m: PromotionMetrics, outcomes: number, window: number) =>
  outcomes === 0
    ? 'no reviewed rounds yet'
    : `${outcomes} reviewed round${outcomes === 1 ? '' : 's'}; over the last ${Math.min(window, outcomes)}: agreement ${pct(m.agreement_rate)}, blocked ${pct(m.block_rate)}, ${m.protected_errors} protected-effect error${m.protected_errors === 1 ? '' : 's'}`;

/** `steward learning promotion`. Returns the exit code. */
export async function promotionCommand(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(`${PROMOTION_USAGE}\n`);
    return CODE.ok;
  }
  try {
    return await promotion(args, io);
  } catch (error) {
    if (!(error instanceof BadInput)) throw error;
    io.stderr(`steward learning promotion: ${error.message}\n\n${PROMOTION_USAGE}\n`);
    return CODE.badInput;
  }
}

function parse(args: string[]) {
  try {
    return parseArgs({ args, options: { json: { type: 'boolean', default: false }, node: { type: 'string' }, window: { type: 'string' }, 'data-dir': { type: 'string' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new BadInput((error as Error).message);
  }
}

async function promotion(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args);
  if (positionals.length > 1) throw new BadInput(`one WORKFLOW_ID at most (got ${positionals.length})`);
  const workflowId = positionals[0];
  if (values.node !== undefined && workflowId === undefined) throw new BadInput('--node names an agent node of a workflow: give the WORKFLOW_ID too');
  const windowText = values.window;
  if (windowText !== undefined && (!/^\d{1,7}$/.test(windowText) || Number(windowText) < 1)) throw new BadInput(`--window takes a whole number of reviewed rounds, 1 or more (got "${windowText}")`);
  const window = windowText === undefined ? DEFAULT_WINDOW : Number(windowText);

  const history = await historyToRead(io, values['data-dir']);
  if (!history.ok && !history.missing) {
    io.stderr(`steward learning promotion: ${history.message}\n`);
    return CODE.badInput;
  }
  if (!history.ok) {
    io.stderr(`steward: there is no data folder at ${history.dataDir}, so no runs (is --data-dir right?)\n`);
    if (values.json) io.stdout(`${JSON.stringify({ window, nodes: [] }, null, 2)}\n`);
    else io.stdout('no agent node has reviewed rounds yet\n');
    return CODE.ok;
  }
  let shown: Array<PromotionSubject & PromotionFigures>;
  try {
    const asked: PromotionSubject[] =
      workflowId === undefined ? await history.journal.promotion.subjects() : values.node !== undefined ? [{ workflow_id: workflowId, node: values.node }] : await history.journal.promotion.subjects(workflowId);
    const one = asked.length === 1 && workflowId !== undefined;
    shown = [];
    for (const subject of asked) {
      const figures = await history.journal.promotion.figures(subject.workflow_id, subject.node, window, one ? SERIES_POINTS : 1);
      shown.push({ ...subject, ...figures, series: one ? figures.series : [] });
    }
  } finally {
    history.close();
  }
  if (values.json) {
    io.stdout(`${JSON.stringify({ window, nodes: shown.map((s) => (s.series.length > 0 ? s : { workflow_id: s.workflow_id, node: s.node, outcomes: s.outcomes, metrics: s.metrics })) }, null, 2)}\n`);
    return CODE.ok;
  }
  if (shown.length === 0 || shown.every((s) => s.outcomes === 0)) {
    const whose = workflowId === undefined ? 'no agent node' : values.node !== undefined ? `${nodeWords({ workflow_id: workflowId, node: values.node })}` : `no agent node of ${workflowId}`;
    io.stdout(`${whose} has reviewed rounds yet: run it with supervision on to start measuring its student\n`);
    return CODE.ok;
  }
  for (const s of shown) io.stdout(`${nodeWords(s)}: ${metricWords(s.metrics, s.outcomes, window)}\n`);
  return CODE.ok;
}
