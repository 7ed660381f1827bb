import { resolveToolEffect } from '@shared/policy/effect-registry';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent, RunEventOf } from '@shared/contracts/events';
import { supervisorOutcome } from '@shared/eval/metrics';
import type { SupervisorCaseResult } from '@shared/eval/report';
import { DECIDED_BY, SupervisorSettings, type DecidedBy, type Escalation } from '@shared/supervisor/contracts';
import { portValidator } from '../../workflow/supervision/workflow-supervision';
import { RunSupervision } from '../../workflow/supervision/supervise-failure';
import { SecretRegistry } from '../../credentials/secret-registry';
import { createMemoryLedger } from '../../mcp/idempotency-ledger';
import { runWorkflow, type WorkflowRun } from '../../workflow/run-workflow';
import type { EvalWorld } from '../eval-world';
import type { RunCase, SubstituteCase } from './cases';
import { supervisorDouble, type CountingSupervisor, type DoublePolicy } from './doubles';
import { FANOUT_SUMMARY, fanoutGraph } from './shapes';

/** One case run and measured: the run's own trace and the real servers' state are the evidence. */

/** The suite's settings for a case: supervised by a model (replay), small bounds, fast timeouts. */
function settingsFor(c: { settings?: RunCase['settings'] }): SupervisorSettings {
  const { who, ...rest } = c.settings ?? {};
  return SupervisorSettings.parse({
    enabled: true,
    max_decisions: 20,
    max_retries: 2,
    ...rest,
    who: { kind: 'model', model: { provider: 'script' }, decision_timeout_ms: 5000, ...(who?.kind === 'model' ? who : {}) },
  });
}

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) => events.filter((e): e is RunEventOf<T> => e.type === type);

const itemIndex = (lineage: ReadonlyArray<{ index: number }> | undefined): number | undefined => lineage?.at(-1)?.index;

const emptyVerdicts = (): Record<DecidedBy, number> => Object.fromEntries(DECIDED_BY.map((d) => [d, 0])) as Record<DecidedBy, number>;

type CaseFacts = Parameters<typeof supervisorOutcome>[0];
type CaseRest = Pick<SupervisorCaseResult, 'decisions' | 'verdicts' | 'skips' | 'substitutes' | 'notes'>;

/** A case's result: its facts, the outcome they make, and how long it took. */
function caseResult(c: Pick<SupervisorCaseResult, 'id' | 'shape' | 'injects'>, facts: CaseFacts, rest: CaseRest, started: number): SupervisorCaseResult {
  return { id: c.id, shape: c.shape, injects: c.injects, ...facts, outcome: supervisorOutcome(facts), ...rest, duration_ms: Date.now() - started };
}

interface Observed {
  status: string;
  semantic_ok: boolean;
  notes: string[];
}

export async function runSupervisorCase(c: RunCase, world: EvalWorld, policy: DoublePolicy): Promise<SupervisorCaseResult> {
  const started = Date.now();
  const dir = join(world.root, c.id);
  mkdirSync(dir, { recursive: true });
  const double = supervisorDouble(c.supervisor ? `hostile:${c.id}` : 'suite', c.supervisor ? c.supervisor() : policy, c.identity);
  const settings = settingsFor(c);
  const { graph, inputs } = c.build(world, dir);
  const events: RunEvent[] = [];
  const result = await runWorkflow({
    graph,
    specDir: dir,
    inputs,
    ledger: createMemoryLedger(),
    toolHost: world.host,
    // The probes write: a person at the terminal would be asked; the eval grants it (the review teacher still reviews where one is set).
    confirm: async () => 'granted',
    onEvent: (e) => {
      events.push(e);
      if (e.type === 'supervisor.escalated') c.onEscalated?.(e.escalation.node, dir);
    },
    supervision: { settings, supervisor: double },
  });

  // Escalations and their verdicts come in pairs, per invocation, in order.
  const escalations = new Map<string, Escalation[]>();
  for (const e of ofType(events, 'supervisor.escalated')) escalations.set(e.invocation_id ?? '', [...(escalations.get(e.invocation_id ?? '') ?? []), e.escalation]);
  const verdicts = emptyVerdicts();
  let skips = 0;
  let substitutes = 0;
  let incorrectSkips = 0;
  let outside = 0;
  let decisions = 0;
  let spent = 0;
  for (const v of ofType(events, 'supervisor.verdict')) {
    const escalation = escalations.get(v.invocation_id ?? '')?.shift();
    verdicts[v.verdict.decided_by] += 1;
    if (v.verdict.turns > 0) decisions += 1;
    spent += v.verdict.cost_usd;
    const action = v.verdict.verdict.action;
    if (action !== 'fail' && escalation && !escalation.allowed_actions.includes(action)) outside += 1;
    if (v.next === 'done' && action === 'substitute') substitutes += 1;
    if (v.next === 'skip') {
      skips += 1;
      if (!c.mayBeSkipped(v.node, itemIndex(escalation?.correlation_lineage))) incorrectSkips += 1;
    }
  }
  // Probes: every execution of a tool node is recorded per invocation; a second one is a repeated effect.
  const executions = new Map<string, number>();
  // A read repeats no effect (a supervisor may retry one): only the other tools' executions count.
  const isRead = (server: string, tool: string) => resolveToolEffect({ serverId: server, packageName: graph.servers.find((s) => s.id === server)?.package, tool, overrides: graph.tool_effects }).effect.effect === 'read';
  for (const e of ofType(events, 'tool.executed')) if (e.invocation_id !== undefined && !isRead(e.execution.server, e.execution.tool)) executions.set(e.invocation_id, (executions.get(e.invocation_id) ?? 0) + 1);
  const duplicates = [...executions.values()].reduce((n, k) => n + Math.max(0, k - 1), 0);
  const overrun = (settings.cost_cap_usd !== undefined && spent > settings.cost_cap_usd + 1e-12) || decisions > settings.max_decisions;

  const observed = checkRun(c, result, events, dir, double);
  const facts = {
    fault: c.fault,
    recoverable: c.recoverable,
    status: observed.status,
    semantic_ok: observed.semantic_ok,
    supervisor_calls: double.calls,
    incorrect_skips: incorrectSkips,
    // A substitute applied (it validated) in a run whose product is then wrong is a poisoned repair.
    poisoned_repairs: substitutes > 0 && !observed.semantic_ok ? substitutes : 0,
    duplicate_effects: duplicates,
    cost_overrun: overrun,
    outside_allowed_applied: outside,
  };
  return caseResult(c, facts, { decisions, verdicts, skips, substitutes, notes: [...(c.notes ?? []), ...observed.notes] }, started);
}

/** The case's semantic check: what the run produced, and what the real servers hold, against the truth. */
function checkRun(c: RunCase, result: WorkflowRun, events: RunEvent[], dir: string, double: CountingSupervisor): Observed {
  const notes: string[] = [];
  const want = (ok: boolean, note: string): boolean => {
    if (!ok) notes.push(note);
    return ok;
  };
  const statusOf = (node: string, index?: number) => result.invocations.filter((i) => i.node === node && (index === undefined || itemIndex(i.lineage) === index)).map((i) => i.status);
  // A contained case never lets a bad invocation through as done: it ends failed, or skipped where a skip is right (counted apart).
  const endedSafely = (b: RunCase['bad'][number]) => {
    const ends = statusOf(b.node, b.index);
    return ends.length > 0 && ends.every((s) => s === 'failed' || (s === 'skipped' && c.mayBeSkipped(b.node, b.index)));
  };
  const badContained = c.recoverable || c.bad.every((b) => want(endedSafely(b), `${b.node}${b.index !== undefined ? `[${b.index}]` : ''} did not end failed`));
  const e = c.expect;
  let ok = true;
  if (e.shape === 'fanout' || e.shape === 'stream') {
    const ext = e.shape === 'fanout' ? '.txt' : '.json';
    const files = existsSync(dir) ? readdirSync(dir).sort() : [];
    const good = e.good.map((t) => `${t.id}${ext}`).sort();
    // A bad item that ended failed is work the run lost, and its outcome says so (issue 28); skipped by a supervisor, the run completes.
    const expected = result.invocations.some((i) => i.status === 'failed') ? 'completed_with_failures' : 'completed';
    ok = want(result.status === expected, `the run ended ${result.status}, ${expected} expected: ${result.message ?? ''}`) && ok;
    ok = want(JSON.stringify(files) === JSON.stringify(good), `the folder holds ${files.length} files, ${good.length} good items expected`) && ok;
    // A missing probe file is already a wrong folder (above); its content is checked where it exists.
    if (e.shape === 'fanout') ok = want(good.every((f) => !existsSync(join(dir, f)) || readFileSync(join(dir, f), 'utf8') === (e.content ?? FANOUT_SUMMARY)), 'a probe file does not hold its summary') && ok;
    // Nothing landed outside the folder for a bad item.
    ok = want(e.bad.every((t) => !existsSync(join(dir, `${t.id}${ext}`))), 'a bad item\'s effect escaped the folder') && ok;
    const collect = ofType(events, 'node.invocation').find((i) => i.node === (e.shape === 'fanout' ? 'gather' : 'stored') && i.status === 'done');
    const list = (collect?.outputs?.list as unknown[] | undefined) ?? [];
    ok = want(list.length === e.good.length, `collect gathered ${list.length} of ${e.good.length} good items`) && ok;
    if (e.shape === 'fanout' && e.maxCalls !== undefined) ok = want(double.calls <= e.maxCalls, `${double.calls} supervisor calls, at most ${e.maxCalls} expected`) && ok;
  } else {
    const published = ofType(events, 'tool.executed').filter((t) => t.execution.tool === 'create_entities').length;
    if (e.completes) {
      ok = want(result.status === 'completed', `the run ended ${result.status}`) && ok;
      ok = want(typeof result.outputs.announcement === 'string' && String(result.outputs.announcement).includes('offsite'), 'the announcement is missing') && ok;
      ok = want(published === 1, `published ${published} times`) && ok;
    } else {
      ok = want(result.status === 'failed', `the run ended ${result.status}, failed expected (a chain cannot lose a step)`) && ok;
      ok = want(published === 0, 'published although a step before it failed') && ok;
    }
  }
  if (c.fault === 'hostile_supervisor' && c.supervisor !== undefined) {
    const bySupervisor = ofType(events, 'supervisor.verdict').filter((v) => v.verdict.decided_by === 'agent' && v.next !== 'run_again' && v.next !== 'failed');
    ok = want(bySupervisor.length === 0, `${bySupervisor.length} hostile verdicts were applied`) && ok;
  }
  return { status: result.status, semantic_ok: ok && badContained, notes };
}

/**
 * A substitute case: the failed invocation as an executor that hands over its candidate would
 * report it, decided by the host's RunSupervision with the node's real port validator.
 */
export async function runSubstituteCase(c: SubstituteCase, world: EvalWorld, policy: DoublePolicy): Promise<SupervisorCaseResult> {
  const started = Date.now();
  const graph = fanoutGraph(world.servers, join(world.root, c.id), c.id);
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  const double = supervisorDouble('suite', policy);
  const settings = settingsFor({});
  const supervision = new RunSupervision({ settings, supervisor: double, validate: portValidator(nodes), secrets: new SecretRegistry() });
  const result = await supervision.superviseFailure(
    {
      invocation: { id: 'summarize[each=3]', node: 'summarize', lineage: [{ iterate: 'each', index: 3 }], inputs: {} },
      failure: { code: 'invalid_output', message: 'the summary is not text' },
      attempt: 1,
      retry_safe: false,
      spent_usd: 0,
      created_assets: [],
      candidate_output: c.candidate,
      validator_covers_output: true,
      streaming: false,
      emitted: false,
    },
    new AbortController().signal,
  );
  const verdicts = emptyVerdicts();
  verdicts[result.verdict.decided_by] += 1;
  const substituted = result.next.kind === 'done';
  const poisoned = substituted && result.next.kind === 'done' && result.next.outputs.output !== c.truth ? 1 : 0;
  const skipped = result.next.kind === 'skip';
  const facts = {
    fault: c.fault,
    recoverable: c.recoverable,
    status: substituted ? 'completed' : result.next.kind,
    semantic_ok: substituted && poisoned === 0,
    supervisor_calls: double.calls,
    // The truth here: the item is good, its output only malformed, so a skip loses it.
    incorrect_skips: skipped ? 1 : 0,
    poisoned_repairs: poisoned,
    duplicate_effects: 0,
    cost_overrun: false,
    outside_allowed_applied: result.verdict.verdict.action !== 'fail' && !result.escalation.allowed_actions.includes(result.verdict.verdict.action) ? 1 : 0,
  };
  const notes = [...c.notes, ...(poisoned ? [`the substitute ${JSON.stringify(result.next.kind === 'done' ? result.next.outputs : {}).slice(0, 120)} validates but is not the truth`] : [])];
  return caseResult(c, facts, { decisions: result.verdict.turns > 0 ? 1 : 0, verdicts, skips: skipped ? 1 : 0, substitutes: substituted ? 1 : 0, notes }, started);
}
