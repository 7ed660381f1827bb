import type { RunEvent } from '@shared/contracts/events';
import type { ChatMessage } from '@shared/contracts/model';
import type { LifecyclePhase } from '@shared/contracts/spec';
import { isProtectedEffect } from '@shared/contracts/tool-effect';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';
import { PromptBook } from '@shared/learning/learning-context';
import type { TrialNode } from '@shared/learning/trial-contract';
import type { TrialCase } from '@shared/learning/trial-report';
import { isSampled } from '@shared/policy/sampler';
import type { EventJournal } from '../../events/event-journal';
import { recordedRounds, type RecordedRound } from '../../eval/verdicts/recorded-rounds';
import { partsOfStudentPrompt, type PromptParts } from '../../eval/verdicts/review-context';

/**
 * The rounds a student trial replays (issue 31): an agent node's last N reviewed rounds — rounds
 * the student proposed and the teacher ruled on — each with its recorded, redacted prompt (the
 * round's learning example, exactly as the student saw it) and the tools as the round offered them.
 * Only what the history recorded is read: no spec, no server, nothing live. A replay's run, a dry
 * run and a trial's own run are not evidence and are left out.
 */

/** An agent file's runs (its spec id), or one agent node of a workflow graph. */
export type TrialTarget = { kind: 'spec'; spec_id: string } | { kind: 'node'; workflow_id: string; node_id: string };

export interface TrialInput {
  case: TrialCase;
  /** The student's prompt of the round, redacted as recorded. */
  messages: ChatMessage[];
  snapshot: ToolSnapshot;
  /** The model that proposed it then. */
  student_model: string;
}

export interface TrialCases {
  inputs: TrialInput[];
  /** The runs they came from. */
  runs: number;
  /** What the newest of them recorded: the node's label, its phase and the student model(s). */
  label?: string;
  phase?: LifecyclePhase;
  students: string[];
}

export function trialNode(target: TrialTarget, label?: string): TrialNode {
  return target.kind === 'spec'
    ? { key: `spec:${target.spec_id}`, label: label ?? target.spec_id, spec_id: target.spec_id }
    : { key: `workflow:${target.workflow_id}/${target.node_id}`, label: label ?? target.node_id, workflow_id: target.workflow_id, node_id: target.node_id };
}

/** The node an invocation id is of (`node` or `node[iterate=i,…]`). */
const nodeOf = (invocation: string) => invocation.split('[')[0] ?? invocation;

/** Whether this run is evidence about the target at all (its own start, not a replay or dry run). */
function runMatches(events: readonly RunEvent[], target: TrialTarget): boolean {
  const first = events[0];
  if (target.kind === 'spec') return first?.type === 'run.started' && first.spec_id === target.spec_id && !first.dry_run && first.replay_of === undefined;
  return first?.type === 'workflow.started' && first.workflow_id === target.workflow_id && first.dry_run !== true && first.replay_of === undefined;
}

function roundMatches(round: RecordedRound, target: TrialTarget): boolean {
  if (target.kind === 'spec') return round.invocation_id === undefined;
  return round.invocation_id !== undefined && nodeOf(round.invocation_id) === target.node_id;
}

/** The student prompts (review learning examples) of a run, by `${invocation}:${round}`. */
function studentPrompts(events: readonly RunEvent[]): Map<string, ChatMessage[]> {
  const book = new PromptBook();
  const prompts = new Map<string, ChatMessage[]>();
  for (const event of events) {
    if (event.type !== 'learning.example') continue;
    const resolved = book.resolve(event);
    if (resolved.ok && event.kind === 'review') prompts.set(`${event.invocation_id ?? ''}:${event.round}`, resolved.context);
  }
  return prompts;
}

/** The models the student ran as, by invocation ('' for an agent run's own). */
function studentModels(events: readonly RunEvent[]): Map<string, string> {
  const models = new Map<string, string>();
  for (const e of events) if (e.type === 'run.started' || e.type === 'agent.started') models.set(e.invocation_id ?? '', e.models.student);
  return models;
}

/**
 * The round's tools as offered: the `tools.snapshot` event's servers, effects and hashes, with the
 * descriptions and input schemas the student's system prompt showed (read once per distinct prompt).
 */
function snapshotFor(round: RecordedRound, messages: readonly ChatMessage[], parsed: Map<string, PromptParts>): ToolSnapshot | undefined {
  const recorded = round.prompt?.snapshot;
  const system = messages[0];
  if (!recorded || system?.role !== 'system') return recorded;
  let parts = parsed.get(system.content);
  if (!parts) {
    parts = partsOfStudentPrompt([system], () => 0);
    parsed.set(system.content, parts);
  }
  const said = parts;
  return {
    ...recorded,
    tools: recorded.tools.map((tool) => {
      const shown = said.tools.get(tool.name);
      return shown ? { ...tool, description: shown.description, input_schema: shown.input_schema, effect: { ...tool.effect, requires_user_confirmation: shown.confirm } } : tool;
    }),
    ...(recorded.routes ? { routes: recorded.routes.map((r) => (said.routes.has(r.name) ? { ...r, description: said.routes.get(r.name) } : r)) } : {}),
  };
}

function inputOf(round: RecordedRound, messages: ChatMessage[], studentModel: string, parsed: Map<string, PromptParts>): TrialInput | undefined {
  const snapshot = snapshotFor(round, messages, parsed);
  const { record } = round;
  if (!snapshot || record.proposer !== 'student' || !round.verdict) return undefined;
  const selected = record.selected;
  const selectedTool = selected?.decision.decision_type === 'tool_call' ? selected.decision.tool_name : undefined;
  const offered = selectedTool === undefined ? undefined : snapshot.tools.find((t) => t.name === selectedTool);
  const rules = round.supervision.rules;
  return {
    case: {
      source: { run_id: round.run_id, ...(round.invocation_id !== undefined ? { invocation_id: round.invocation_id } : {}), round: round.round, ts: round.started_at },
      supervision: round.supervision,
      sampled: isSampled(rules.sample_rate, rules.sample_seed, round.sampler_run, round.round),
      student: { ...(round.decision ? { decision: round.decision } : {}), protected: round.protected, verdict: round.verdict.verdict },
      ...(selected ? { selected } : {}),
      // A tool the round did not offer, or whose effect nobody recorded, counts as protected.
      selected_protected: selectedTool !== undefined && (offered === undefined || isProtectedEffect(offered.effect.effect)),
    },
    messages,
    snapshot,
    student_model: studentModel,
  };
}

/**
 * One run's reviewed rounds of the target with a recorded prompt, oldest first (none when the run is
 * not evidence about it: a replay, a dry run, another node's run), with the label the run gives it.
 */
export function runTrialInputs(events: readonly RunEvent[], target: TrialTarget, parsed: Map<string, PromptParts> = new Map()): { inputs: TrialInput[]; label?: string } {
  if (!runMatches(events, target)) return { inputs: [] };
  const prompts = studentPrompts(events);
  const models = studentModels(events);
  // Its learning examples are read here (the prompts as sent); the teacher's review context is not needed.
  const rounds = recordedRounds(events.filter((e) => e.type !== 'learning.example')).filter((r) => roundMatches(r, target));
  const inputs: TrialInput[] = [];
  let label: string | undefined;
  for (const round of rounds) {
    const messages = prompts.get(`${round.invocation_id ?? ''}:${round.round}`);
    const input = messages && messages.length > 0 ? inputOf(round, messages, models.get(round.invocation_id ?? '') ?? '?', parsed) : undefined;
    if (!input) continue;
    inputs.push(input);
    label = target.kind === 'spec' ? round.spec_name : nodeLabel(events, target.node_id, round.spec_name);
  }
  return { inputs, ...(label !== undefined ? { label } : {}) };
}

/**
 * The target's last `limit` reviewed rounds with a recorded prompt, oldest first. Reads the runs of
 * that workflow (or spec) newest first and stops once it has enough.
 */
export function readTrialCases(journal: Pick<EventJournal, 'runsPage' | 'runEvents'>, target: TrialTarget, limit: number): TrialCases {
  const found: TrialInput[] = [];
  const students = new Set<string>();
  let runs = 0;
  let label: string | undefined;
  let phase: LifecyclePhase | undefined;
  const workflow = target.kind === 'spec' ? target.spec_id : target.workflow_id;
  const parsed = new Map<string, PromptParts>();
  let after;
  do {
    const page = journal.runsPage({ workflow, limit: 200, ...(after ? { after } : {}) });
    for (const listed of page.runs) {
      if (found.length >= limit) break;
      const ofRun = runTrialInputs(journal.runEvents(listed.run.run_id), target, parsed);
      let kept = 0;
      // Newest rounds first, so a limit keeps the latest.
      for (const input of ofRun.inputs.reverse()) {
        if (found.length >= limit) break;
        found.push(input);
        students.add(input.student_model);
        kept += 1;
        label ??= ofRun.label;
        phase ??= input.case.supervision.phase;
      }
      if (kept > 0) runs += 1;
    }
    after = page.next;
  } while (after && found.length < limit);
  return { inputs: found.reverse(), runs, ...(label !== undefined ? { label } : {}), ...(phase !== undefined ? { phase } : {}), students: [...students] };
}

function nodeLabel(events: readonly RunEvent[], node: string, fallback: string): string {
  const first = events[0];
  const graphNode = first?.type === 'workflow.started' ? first.nodes.find((n) => n.id === node) : undefined;
  const name = first?.type === 'workflow.started' ? first.workflow_name : undefined;
  const nodeName = graphNode?.label ?? fallback;
  return name !== undefined ? `${nodeName} (${name})` : nodeName;
}
