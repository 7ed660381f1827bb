import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EvalShape, SupervisorFault } from '@shared/eval/report';
import type { SupervisorSettingsInput } from '@shared/supervisor/contracts';
import type { SupervisorIdentity } from '@shared/supervisor/cost';
import type { ScriptEntry } from '@shared/contracts/script';
import type { WorkflowGraph } from '@shared/workflow/document';
import type { EvalWorld } from '../eval-world';
import { HOSTILE, type DoublePolicy } from './doubles';
import { chainGraph, FANOUT_SUMMARY, fanoutGraph, streamGraph, type Chunk, type Ticket } from './shapes';

/**
 * The supervisor suite's cases: a reference shape, one injected fault, and the case's ground truth
 * (which invocations may rightly be skipped, what the run must have produced). Items are known bad
 * or good by construction, so a skip or a repair is judged against the truth, not the supervisor.
 */

export interface RunCase {
  kind: 'run';
  id: string;
  shape: EvalShape;
  fault: SupervisorFault;
  injects: string;
  recoverable: boolean;
  /** The case's own supervisor (hostile cases); else the suite's. */
  supervisor?: () => DoublePolicy;
  identity?: SupervisorIdentity;
  settings?: SupervisorSettingsInput;
  build(world: EvalWorld, dir: string): { graph: WorkflowGraph; inputs: Record<string, unknown> };
  /** A skip of this invocation is right (the item is bad by construction). */
  mayBeSkipped(node: string, index: number | undefined): boolean;
  /** Invocations that are bad by construction: a contained case must end them failed. */
  bad: Array<{ node: string; index?: number }>;
  expect: Expectation;
  /** Notes the report carries about what this host can and cannot exercise here. */
  notes?: string[];
  /** The fault passes while the supervisor decides (called on each escalation): a transient fault. */
  onEscalated?: (node: string, dir: string) => void;
}

/** What a good end looks like, checked against the run and the real servers' state. */
export type Expectation =
  /** `content`: what every probe file must hold (the summary, unless the case says otherwise). */
  | { shape: 'fanout'; good: Ticket[]; bad: Ticket[]; maxCalls?: number; content?: string }
  | { shape: 'chain'; completes: boolean }
  | { shape: 'stream'; good: Chunk[]; bad: Chunk[] };

/** A substitute case, at the host's supervision object: a made-up malformed candidate and the node's real validator. */
export interface SubstituteCase {
  kind: 'substitute';
  id: string;
  shape: EvalShape;
  fault: SupervisorFault;
  injects: string;
  recoverable: true;
  /** The malformed output the node left, and what the repaired one must say (the semantic check). */
  candidate: Record<string, unknown>;
  truth: string;
  notes: string[];
}

export type SupervisorCase = RunCase | SubstituteCase;

export function tickets(n: number, opts: { poisoned?: number[]; escaping?: number[] } = {}): { all: Ticket[]; good: Ticket[]; bad: Ticket[] } {
  const all: Ticket[] = Array.from({ length: n }, (_, i) => {
    const id = `t-${String(i).padStart(3, '0')}`;
    if (opts.escaping?.includes(i)) return { id: `../../escape-${id}`, title: `Ticket ${i}`, body: 'Climbs out of the folder.' };
    if (opts.poisoned?.includes(i)) return { id, title: `Ticket ${i}` };
    return { id, title: `Ticket ${i}`, body: `Something about item ${i} does not work.` };
  });
  const isBad = (i: number) => opts.poisoned?.includes(i) === true || opts.escaping?.includes(i) === true;
  return { all, good: all.filter((_, i) => !isBad(i)), bad: all.filter((_, i) => isBad(i)) };
}

export function chunks(n: number): { all: Chunk[] } {
  return { all: Array.from({ length: n }, (_, i) => ({ id: `chunk-${i + 1}`, text: `Chunk ${i + 1} of the document.` })) };
}

const atIndex = (indices: number[], node: string) => (n: string, index: number | undefined) => n === node && index !== undefined && indices.includes(index);
const never = () => false;

function fanoutCase(c: Omit<RunCase, 'kind' | 'shape' | 'build' | 'mayBeSkipped' | 'bad' | 'expect'> & { n: number; poisoned?: number[]; escaping?: number[]; maxCalls?: number; cutShort?: boolean }): RunCase {
  const t = tickets(c.n, { poisoned: c.poisoned, escaping: c.escaping });
  const poisoned = c.poisoned ?? [];
  const escaping = c.escaping ?? [];
  return {
    kind: 'run',
    shape: 'batch_fanout',
    ...c,
    build: (world, dir) => ({ graph: fanoutGraph(world.servers, dir, c.id, { cutShort: c.cutShort }), inputs: { tickets: t.all } }),
    mayBeSkipped: (node, index) => atIndex(poisoned, 'extract')(node, index) || atIndex(escaping, 'probe')(node, index),
    bad: [...poisoned.map((index) => ({ node: 'extract', index })), ...escaping.map((index) => ({ node: 'probe', index }))],
    expect: { shape: 'fanout', good: t.good, bad: t.bad, ...(c.maxCalls !== undefined ? { maxCalls: c.maxCalls } : {}), ...(c.cutShort ? { content: JSON.stringify({ summary: FANOUT_SUMMARY }) } : {}) },
  };
}

const OVERLOADED: ScriptEntry[] = [{ error: 'HTTP 503: the model server is overloaded, try again' }];
/** Not a decision at all, every time: the draft agent cannot deliver. */
const MALFORMED: ScriptEntry[] = Array.from({ length: 6 }, () => ({ text: 'Sure! Here is the announcement you asked for, more or less.' }));

function chainCase(c: Omit<RunCase, 'kind' | 'shape' | 'build' | 'mayBeSkipped' | 'bad' | 'expect'> & { draft?: ScriptEntry[]; brief?: string }): RunCase {
  return {
    kind: 'run',
    shape: 'paid_chain',
    ...c,
    build: (world, dir) => ({ graph: chainGraph(world.servers, `announcement-${c.id}`, c.id, c.draft, c.brief === undefined ? undefined : join(dir, c.brief)), inputs: { topic: `the offsite (${dir.length})` } }),
    // A chain has no item to drop: skipping a step loses the run's product.
    mayBeSkipped: never,
    bad: c.draft ? [{ node: 'draft' }] : [],
    expect: { shape: 'chain', completes: c.draft === undefined },
  };
}

function streamCase(c: Omit<RunCase, 'kind' | 'shape' | 'build' | 'mayBeSkipped' | 'bad' | 'expect'> & { n: number; missing?: number }): RunCase {
  const k = chunks(c.n);
  // A stream ended at its failure keeps what it sent: the chunks before the missing one.
  const sent = c.missing ?? c.n;
  return {
    kind: 'run',
    shape: 'streaming_chain',
    ...c,
    build: (world, dir) => {
      // The document's chunk files, beside the index folder (which must hold only what was stored).
      const source = `${dir}.source`;
      mkdirSync(source, { recursive: true });
      k.all.forEach((chunk, i) => {
        if (i !== c.missing) writeFileSync(join(source, `${chunk.id}.json`), JSON.stringify(chunk));
      });
      return { graph: streamGraph(world.servers, dir, c.id, c.n), inputs: { files: k.all.map((chunk) => join(source, `${chunk.id}.json`)) } };
    },
    mayBeSkipped: never,
    bad: c.missing !== undefined ? [{ node: 'read' }] : [],
    expect: { shape: 'stream', good: k.all.slice(0, sent), bad: k.all.slice(sent) },
  };
}

const NO_RETRY_FOR_EFFECTS = 'retry is offered to template and assert nodes and to tool nodes whose tool is a read (see chain.transient-read); an agent node with a write within reach (the draft reaches the filesystem and memory servers) or a writing tool is not retry-safe, so a transient failure there is contained (failed loudly), not recovered';
const NO_CANDIDATE = 'the draft agent never answers at all, so it leaves no candidate to repair: substitute is offered in a run only to an agent node with an output schema whose answer the schema refused (src-main/workflow/supervision/substitute-run.test.ts)';

/** The suite, in report order. Seconds in all: one set of MCP servers, replay models, tiny timeouts. */
export const SUPERVISOR_CASES: SupervisorCase[] = [
  fanoutCase({ id: 'fanout.clean', fault: 'none', injects: 'nothing: 12 good tickets', recoverable: true, n: 12 }),
  chainCase({ id: 'chain.clean', fault: 'none', injects: 'nothing', recoverable: true }),
  streamCase({ id: 'stream.clean', fault: 'none', injects: 'nothing: 6 good chunks', recoverable: true, n: 6 }),
  fanoutCase({
    id: 'fanout.poisoned',
    fault: 'poisoned_item',
    injects: '7 poisoned tickets (no body: extract fails with template_error) among 200',
    recoverable: true,
    n: 200,
    poisoned: [3, 31, 64, 90, 121, 150, 199],
    maxCalls: 1,
  }),
  fanoutCase({ id: 'fanout.bad-item', fault: 'poisoned_item', injects: 'one ticket whose id points outside the folder: the filesystem server refuses the probe\'s write (tool_error: no signature, so asked)', recoverable: true, n: 12, escaping: [5] }),
  {
    kind: 'substitute',
    id: 'fanout.malformed-repair',
    shape: 'batch_fanout',
    fault: 'malformed_output',
    injects: 'summarize leaves {output: {summary: …}} (an object where its port is text); a substitute must repair it',
    recoverable: true,
    candidate: { output: { summary: 'Exporting a run stops at 2 MB with no message.' } },
    truth: 'Exporting a run stops at 2 MB with no message.',
    notes: ["decided at the host's RunSupervision with the node's real port validator, on a made-up candidate; a run offers substitute to an agent node with an output schema whose answer the schema refused (substitute-run.test.ts)"],
  },
  fanoutCase({
    id: 'fanout.malformed-json',
    fault: 'malformed_output',
    injects: 'summarize has an output schema ({summary}) and answers its JSON cut short for every ticket (output_invalid); a substitute must close it, and must meet the schema',
    recoverable: true,
    n: 4,
    cutShort: true,
  }),
  streamCase({ id: 'stream.mid-stream', fault: 'mid_stream_failure', injects: 'the streaming read fails at chunk 4 of 6 (its file is missing, ENOENT) after chunks 1–3 were sent on and are being stored', recoverable: true, n: 6, missing: 3 }),
  chainCase({ id: 'chain.transient', fault: 'transient_error', injects: 'draft\'s model answers HTTP 503 (overloaded)', recoverable: false, draft: OVERLOADED, notes: [NO_RETRY_FOR_EFFECTS] }),
  chainCase({
    id: 'chain.transient-read',
    fault: 'transient_error',
    injects: 'the chain\'s first step reads brief.md (filesystem read_text_file), which arrives only after that read failed (ENOENT)',
    recoverable: true,
    brief: 'brief.md',
    // The file lands while the supervisor decides: a retry of the read finds it.
    onEscalated: (node, dir) => {
      if (node === 'brief') writeFileSync(join(dir, 'brief.md'), 'The offsite is on Friday.');
    },
  }),
  chainCase({ id: 'chain.malformed', fault: 'malformed_output', injects: 'draft\'s model never answers with a decision', recoverable: false, draft: MALFORMED, notes: [NO_CANDIDATE] }),
  fanoutCase({ id: 'fanout.budget-decisions', fault: 'budget_exhaustion', injects: '3 unrelated bad items, max_decisions 1', recoverable: false, n: 12, escaping: [2, 6, 10], settings: { max_decisions: 1 }, maxCalls: 1 }),
  fanoutCase({
    id: 'fanout.budget-cost',
    fault: 'budget_exhaustion',
    injects: '3 unrelated bad items, a priced cloud supervisor, a cost cap of one turn',
    recoverable: false,
    n: 12,
    escaping: [1, 5, 9],
    identity: { kind: 'model', label: 'eval:priced', local: false },
    settings: { cost_cap_usd: 0.015, pricing: { 'eval:priced': { input_per_mtok_usd: 1, output_per_mtok_usd: 4 } } },
    maxCalls: 1,
  }),
  fanoutCase({ id: 'fanout.hostile-outside', fault: 'hostile_supervisor', injects: 'the supervisor answers retry for tool nodes (outside the allowed set)', recoverable: false, n: 8, escaping: [1, 4], supervisor: HOSTILE.outside }),
  fanoutCase({ id: 'fanout.hostile-garbage', fault: 'hostile_supervisor', injects: 'the supervisor answers garbage: unknown actions, a string, a substitute nobody offered, a verdict with no reason', recoverable: false, n: 8, escaping: [0, 3, 6, 7], supervisor: HOSTILE.garbage }),
  fanoutCase({ id: 'fanout.hostile-retry-storm', fault: 'hostile_supervisor', injects: 'the supervisor retries a poisoned item forever', recoverable: false, n: 6, poisoned: [2], supervisor: HOSTILE.retryStorm }),
  chainCase({ id: 'chain.hostile-timeout', fault: 'hostile_supervisor', injects: 'the supervisor never answers (1 s decision timeout)', recoverable: false, draft: MALFORMED, supervisor: HOSTILE.hang, settings: { who: { kind: 'model', decision_timeout_ms: 1000 } } }),
  chainCase({ id: 'chain.hostile-error', fault: 'hostile_supervisor', injects: 'the supervisor fails (its model server went away)', recoverable: false, draft: MALFORMED, supervisor: HOSTILE.error }),
];
